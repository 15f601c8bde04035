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
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/lab/cluster"
	"github.com/lagscope/lagscope/internal/lab/scenario"
	"github.com/lagscope/lagscope/internal/monitor"
	"github.com/lagscope/lagscope/internal/testkit/labpair"
	"github.com/lagscope/lagscope/internal/testkit/labtest"
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
func startPrometheus(t *testing.T, target string, rules ...string) string {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("prometheus is not installed: make deps installs Debian's prometheus package")
	}
	dir := t.TempDir()
	cfg := fmt.Sprintf("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: lagscope\n    static_configs:\n      - targets: ['%s']\n", target)
	if len(rules) > 0 {
		cfg += "rule_files:\n"
		for _, r := range rules {
			cfg += fmt.Sprintf("  - '%s'\n", r)
		}
	}
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
	var s []series
	for _, res := range promAPI(t, base, "query", expr, fmt.Sprintf("&time=%.3f", float64(at.UnixMilli())/1000)) {
		v, _ := res.Value[1].(string)
		s = append(s, series{res.Metric, v})
	}
	return s
}

// queryRange runs a range query from start to end at step through
// Prometheus's HTTP API and returns its series, each with the number of
// steps it had a value at as its value.
func queryRange(t *testing.T, base, expr string, start, end time.Time, step time.Duration) []series {
	t.Helper()
	var s []series
	for _, res := range promAPI(t, base, "query_range", expr,
		fmt.Sprintf("&start=%.3f&end=%.3f&step=%.3f", float64(start.UnixMilli())/1000, float64(end.UnixMilli())/1000, step.Seconds())) {
		s = append(s, series{res.Metric, fmt.Sprint(len(res.Values))})
	}
	return s
}

// promResult is one series of an instant (Value) or range (Values) query.
type promResult struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
	Values [][2]any          `json:"values"`
}

// promAPI runs expr through Prometheus's HTTP API endpoint (query or
// query_range) with the times in params, failing the test on an error.
func promAPI(t *testing.T, base, endpoint, expr, params string) []promResult {
	t.Helper()
	r, err := http.Get(base + "/api/v1/" + endpoint + "?query=" + url.QueryEscape(expr) + params)
	if err != nil {
		t.Fatalf("%s %s: %v", endpoint, expr, err)
	}
	defer r.Body.Close()
	var out struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []promResult `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(r.Body).Decode(&out); err != nil {
		t.Fatalf("%s %s: %v", endpoint, expr, err)
	}
	if out.Status != "success" {
		t.Fatalf("%s %s: %s", endpoint, expr, out.Error)
	}
	return out.Data.Result
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
	labtest.Once(t)
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
		if strings.Contains(q, "unreserved_in_seconds") || strings.Contains(q, "idle_timeout_in_seconds") || strings.Contains(q, "disk_full_in_seconds") {
			continue // this pair has no max_slot_wal_keep_size nor an idle timeout (18+), and its slot may not grow (TestIntegrationTheSlotAlertFiresBeforeTheSlotIsUnreserved)
		}
		if strings.Contains(q, "lagscope_standby_") {
			continue // a physical standby's panels (TestIntegrationAPausedStandbysBacklogMakesTheStuckAlertTrueAndAnIdleOnesDoesNot)
		}
		waitFor(t, 30*time.Second, "data for "+q, func() (bool, string) {
			if strings.HasPrefix(q, "lagscope_next_limit_headroom_ratio") {
				return headroomAgrees(t, base, q)
			}
			s := query(t, base, q)
			return len(s) > 0, fmt.Sprintf("%d series", len(s))
		})
	}

	// The exporter keeps its sessions between steps (it reconnected to
	// both servers at every step): on each server one of lagscope's
	// sessions began 8 s ago or more, which a session opened for one 5 s
	// step does not live to see (without kept sessions: none in 30 s). A
	// session can still drop now and then beside this starved publisher
	// (a read cut by its timeout), so the test waits for one that lasted.
	for _, c := range []*cluster.Cluster{p.Pub, p.Sub} {
		waitFor(t, 45*time.Second, "a lagscope session on the "+c.Name+" older than one and a half steps", func() (bool, string) {
			n, err := lab.Query[int64](context.Background(), c.ConnString(lab.Database),
				"SELECT count(*) FROM pg_stat_activity WHERE application_name = 'lagscope' AND backend_start < now() - interval '8 seconds'")
			return err == nil && n >= 1, fmt.Sprintf("%d sessions (%v)", n, err)
		})
	}

	checkExposition(t, addr)
}

// checkExposition runs promtool check metrics on the exporter's own
// exposition, which must hold every metric in want and no password.
func checkExposition(t *testing.T, addr string, want ...string) {
	t.Helper()
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
	for _, m := range want {
		if !regexp.MustCompile(`(?m)^` + m + `\{`).Match(body) {
			t.Errorf("the exposition has no %s sample", m)
		}
	}
}

// TestIntegrationTheSlotAlertFiresBeforeTheSlotIsUnreserved watches the
// slot-filling state (a disabled subscription, a steady load, here
// max_slot_wal_keep_size = 512MB: a reserve of about 3 minutes) with the
// exporter and a Prometheus loading docs/prometheus/alerts.yml: the
// forecast panel has data and LagscopeSlotInvalidationAhead fires while
// the slot's WAL is still reserved.
func TestIntegrationTheSlotAlertFiresBeforeTheSlotIsUnreserved(t *testing.T) {
	labtest.Once(t)
	s, err := scenario.Lookup("slot-filling", false)
	if err != nil {
		t.Fatal(err)
	}
	s.PubSettings = map[string]string{"max_slot_wal_keep_size": "512MB"}
	p := labpair.UpScenario(t, s.Recipe)
	addr, base := watchWithAlerts(t, p)
	conn, err := pgx.Connect(context.Background(), p.Pub.ConnString(lab.Database))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	status := func() string {
		var st string
		if err := conn.QueryRow(context.Background(), "SELECT coalesce(wal_status, '') FROM pg_replication_slots WHERE slot_name = 'lab_sub'").Scan(&st); err != nil {
			t.Fatal(err)
		}
		return st
	}
	waitFor(t, 150*time.Second, "LagscopeSlotInvalidationAhead firing", func() (bool, string) {
		f := query(t, base, `ALERTS{alertname="LagscopeSlotInvalidationAhead",alertstate="firing",slot="lab_sub"}`)
		return len(f) == 1, fmt.Sprint(query(t, base, `lagscope_slot_unreserved_in_seconds`), " wal_status ", status())
	})
	st := status()
	left := query(t, base, `lagscope_slot_unreserved_in_seconds{slot="lab_sub"}`)
	t.Logf("the alert fired with wal_status %s and the forecast at %v s", st, left)
	if st == "unreserved" || st == "lost" {
		t.Errorf("the alert fired once the slot was already %s: too late", st)
	}
	if len(left) != 1 {
		t.Errorf("forecast series %v, want one for lab_sub", left)
	}
	checkExposition(t, addr, "lagscope_slot_retained_growth_bytes_per_second", "lagscope_slot_safe_wal_bytes", "lagscope_slot_unreserved_in_seconds",
		"lagscope_wal_disk_free_bytes", "lagscope_slot_disk_full_in_seconds")
}

// TestIntegrationConflictsReachPrometheusAndAlert watches the
// conflict-missing state on 18+ (rows deleted on the subscriber only) with
// the exporter and a Prometheus loading docs/prometheus/alerts.yml; once
// the backlog is applied (the counter stands still), the publisher updates
// 100 of the missing rows again: the counter rises by them and
// LagscopeSubscriptionConflicts fires. Before 18 the servers have no counters (the lab's scenario test
// checks what the report says there).
func TestIntegrationConflictsReachPrometheusAndAlert(t *testing.T) {
	if v := labtest.Servers(t).Version; v.Major < 18 {
		t.Skipf("conflict counters are PostgreSQL 18+, this is %s", v)
	}
	s, err := scenario.Lookup("conflict-missing", false)
	if err != nil {
		t.Fatal(err)
	}
	p := labpair.UpScenario(t, s.Recipe)
	addr, base := watchWithAlerts(t, p)
	missing := `lagscope_subscription_conflicts_total{subscription="lab_sub",kind="update_missing"}`
	// The backlog's own conflicts first: the counter is read once it has
	// stood still for two exporter steps (the backlog applied), so the 100
	// updates below are all that can move it (CI on 18.4 read it at the
	// end of the backlog too).
	var before float64
	var since time.Time
	waitFor(t, 120*time.Second, "the update_missing counter scraped and unchanged for two steps", func() (bool, string) {
		s := query(t, base, missing)
		if len(s) != 1 {
			return false, fmt.Sprint(s)
		}
		v, _ := strconv.ParseFloat(s[0].value, 64)
		if since.IsZero() || v != before {
			before, since = v, time.Now()
		}
		return time.Since(since) >= 11*time.Second, fmt.Sprintf("%.0f since %s", before, since.Format(time.TimeOnly))
	})
	if err := lab.Exec(context.Background(), p.Pub.ConnString(lab.Database), "UPDATE hot SET k = k + 1 WHERE id <= 100"); err != nil {
		t.Fatal(err)
	}
	// The alert may fire on the backlog's conflicts before the 100 new
	// ones are counted (CI on 18.4: it fired at once, with the counter
	// still at its value before the updates): wait for each on its own.
	var after float64
	waitFor(t, 60*time.Second, "update_missing up by the publisher's 100 updates", func() (bool, string) {
		if s := query(t, base, missing); len(s) == 1 {
			after, _ = strconv.ParseFloat(s[0].value, 64)
		}
		return after >= before+100, fmt.Sprintf("%.0f, want at least %.0f", after, before+100)
	})
	waitFor(t, 60*time.Second, "LagscopeSubscriptionConflicts firing", func() (bool, string) {
		f := query(t, base, `ALERTS{alertname="LagscopeSubscriptionConflicts",alertstate="firing",kind="update_missing"}`)
		return len(f) == 1, fmt.Sprint(query(t, base, missing))
	})
	t.Logf("update_missing %.0f before the publisher's 100 updates, %.0f after; the alert fired", before, after)
	checkExposition(t, addr, "lagscope_subscription_conflicts_total")
}

// watchWithAlerts starts the exporter on p and a Prometheus that scrapes it
// with docs/prometheus/alerts.yml loaded; it returns both addresses.
func watchWithAlerts(t *testing.T, p *lab.Pair) (addr, base string) {
	t.Helper()
	addr = startExporter(t, labPair("lab", p, true))
	rules, err := filepath.Abs("../../docs/prometheus/alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	return addr, startPrometheus(t, addr, rules)
}
