package exporter

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/labtest"
	"github.com/lagscope/lagscope/internal/labtest/labpair"
	"github.com/lagscope/lagscope/internal/monitor"
)

// startExporter runs an exporter for pairs on a free port until the test ends.
func startExporter(t *testing.T, pairs ...monitor.Options) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Listen: "127.0.0.1:0", Pairs: pairs, Ready: func(a net.Addr) { addr <- a },
			Log: slog.New(slog.NewTextHandler(labtest.Log{T: t}, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("exporter: %v", err)
		}
	})
	select {
	case a := <-addr:
		return a.String()
	case err := <-done:
		t.Fatalf("exporter did not start: %v", err)
	}
	return ""
}

func labPair(name string, p *lab.Pair, subscriber bool) monitor.Options {
	o := monitor.Options{Pair: name, Window: 10 * time.Second, Step: 5 * time.Second,
		Diagnose: diagnose.Options{Publisher: p.Pub.ConnString(lab.Database), ProbeHz: 20, Tick: time.Second}}
	if subscriber {
		o.Diagnose.Subscriber = p.Sub.ConnString(lab.Database)
	}
	if err := o.Validate(); err != nil {
		panic(err)
	}
	return o
}

// startPrometheus runs Debian's Prometheus scraping target every second.
func startPrometheus(t *testing.T, target string) string {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("prometheus is not installed: make deps installs Debian's prometheus package")
	}
	dir := t.TempDir()
	cfg := fmt.Sprintf("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: lagscope\n    static_configs:\n      - targets: ['%s']\n", target)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	listen := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+listen, "--log.level=warn")
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start prometheus: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("prometheus log:\n%s", log.String())
		}
	})
	base := "http://" + listen
	waitFor(t, 30*time.Second, "prometheus ready", func() (bool, string) {
		r, err := http.Get(base + "/-/ready")
		if err != nil {
			return false, err.Error()
		}
		r.Body.Close()
		return r.StatusCode == 200, r.Status
	})
	return base
}

// query runs an instant query through Prometheus's HTTP API and returns
// its series: labels and value.
func query(t *testing.T, base, expr string) []series {
	t.Helper()
	return queryAt(t, base, expr, time.Now())
}

// queryAt is query evaluated at one instant, so that several queries read
// the same scrape.
func queryAt(t *testing.T, base, expr string, at time.Time) []series {
	t.Helper()
	r, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(expr) +
		fmt.Sprintf("&time=%.3f", float64(at.UnixMilli())/1000))
	if err != nil {
		t.Fatalf("query %s: %v", expr, err)
	}
	defer r.Body.Close()
	var out struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(r.Body).Decode(&out); err != nil {
		t.Fatalf("query %s: %v", expr, err)
	}
	if out.Status != "success" {
		t.Fatalf("query %s: %s", expr, out.Error)
	}
	var s []series
	for _, res := range out.Data.Result {
		v, _ := res.Value[1].(string)
		s = append(s, series{res.Metric, v})
	}
	return s
}

type series struct {
	labels map[string]string
	value  string
}

func waitFor(t *testing.T, limit time.Duration, what string, ok func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(limit)
	last := ""
	for time.Now().Before(deadline) {
		var done bool
		if done, last = ok(); done {
			return
		}
		time.Sleep(time.Second)
	}
	t.Fatalf("%s: not within %s (last: %s)", what, limit, last)
}

// dashboardQueries are the PromQL expressions of docs/grafana/lagscope.json
// with Grafana's variables replaced for a test over the last minute.
func dashboardQueries(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../docs/grafana/lagscope.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("dashboard: %v", err)
	}
	r := strings.NewReplacer(`"$pair"`, `".*"`, "$__rate_interval", "20s")
	var out []string
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			out = append(out, r.Replace(tg.Expr))
		}
	}
	return out
}

// headroomAgrees reports whether the headroom panel's query q agrees with
// the stage utilisations of the same scrape: a headroom series exists, or
// no stage but the limit is 10% busy (the rule names no next limit then,
// classify.nextLimit).
func headroomAgrees(t *testing.T, base, q string) (bool, string) {
	t.Helper()
	at := time.Now()
	head := queryAt(t, base, q, at)
	busy := queryAt(t, base, `lagscope_stage_utilisation_ratio{pair="lab"} >= 0.1 unless on (pair, slot, subscription, stage) (lagscope_bottleneck == 1)`, at)
	var names []string
	for _, s := range busy {
		names = append(names, s.labels["stage"]+"="+s.value)
	}
	switch {
	case len(head) > 0 && len(busy) > 0:
		t.Logf("next limit %s at %sx; stages other than the limit 10%%+ busy: %v", head[0].labels["stage"], head[0].value, names)
		return true, ""
	case len(head) == 0 && len(busy) == 0:
		t.Logf("no next limit: no stage other than the limit is 10%% busy, and no headroom series")
		return true, ""
	}
	return false, fmt.Sprintf("%d headroom series, stages other than the limit 10%%+ busy: %v", len(head), names)
}

func TestIntegrationPrometheusSeesTheVerdictAndEveryDashboardQueryHasData(t *testing.T) {
	labpair.Once(t)
	p := labpair.Up(t, "walsender-starved")
	addr := startExporter(t, labPair("lab", p, true))
	base := startPrometheus(t, addr)

	// The right stage at 1, through Prometheus.
	waitFor(t, 60*time.Second, "lagscope_bottleneck{stage=walsender} at 1", func() (bool, string) {
		s := query(t, base, `lagscope_bottleneck{pair="lab",stage="walsender"} == 1`)
		return len(s) == 1, fmt.Sprint(query(t, base, `lagscope_verdict == 1`))
	})
	if s := query(t, base, `lagscope_bottleneck{pair="lab"} == 1`); len(s) != 1 {
		t.Errorf("%d stages at 1, want exactly one: %v", len(s), s)
	}
	// Every panel's query returns data once the counters have two points
	// in a rate window; the headroom panel's only when a next limit exists.
	for _, q := range dashboardQueries(t) {
		waitFor(t, 30*time.Second, "data for "+q, func() (bool, string) {
			if strings.HasPrefix(q, "lagscope_next_limit_headroom_ratio") {
				return headroomAgrees(t, base, q)
			}
			s := query(t, base, q)
			return len(s) > 0, fmt.Sprintf("%d series", len(s))
		})
	}

	// promtool check metrics on the exporter's own exposition.
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatal("promtool missing beside prometheus")
	}
	r, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
	if regexp.MustCompile(`password`).Match(body) {
		t.Error("the exposition mentions a password")
	}
}
