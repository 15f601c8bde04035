package exporter

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/monitor"
	"github.com/lagscope/lagscope/internal/report"
)

// failing is a collector whose every collection fails.
type failing struct{}

var descFailing = prometheus.NewDesc("test_failing", "A collector that fails.", nil, nil)

func (failing) Describe(ch chan<- *prometheus.Desc) { ch <- descFailing }
func (failing) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.NewInvalidMetric(descFailing, errors.New("the failing collector failed"))
}

// panicking is a Collector whose pair "bad" panics while collected.
type panicking struct{ *Collector }

func (p panicking) Collect(ch chan<- prometheus.Metric) {
	p.Collector.Collect(ch)
	collectPairSafely(ch, NewPairState("bad", false), func(chan<- prometheus.Metric, *PairState) { panic("index out of range [3] with length 3") })
}

// serve scrapes reg through the exporter's /metrics handler: status, body
// and what it logged.
func serve(t *testing.T, reg prometheus.Gatherer) (int, string, string) {
	t.Helper()
	var log bytes.Buffer
	h := metricsHandler(reg, slog.New(slog.NewTextHandler(&log, nil)))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	return rec.Code, rec.Body.String(), log.String()
}

func TestACollectorOrPairThatFailsLeavesTheOthersServed(t *testing.T) {
	good := NewCollector([]monitor.Options{{Pair: "good", Diagnose: diagnose.Options{Publisher: "x"}}})
	for _, c := range []struct {
		name string
		reg  func() *prometheus.Registry
		err  string
	}{
		{"another collector's error", func() *prometheus.Registry {
			r := prometheus.NewRegistry()
			r.MustRegister(good, failing{})
			return r
		}, "the failing collector failed"},
		{"another pair's panic", func() *prometheus.Registry {
			r := prometheus.NewRegistry()
			r.MustRegister(panicking{good})
			return r
		}, "pair bad: its series are left out of this scrape: index out of range"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, body, log := serve(t, c.reg())
			if code != http.StatusOK {
				t.Errorf("status %d, want 200 (ContinueOnError)", code)
			}
			if !strings.Contains(body, `lagscope_up{pair="good",server="publisher"} 0`) || !strings.Contains(body, "lagscope_build_info") {
				t.Errorf("the good pair's series are missing:\n%s", body)
			}
			if !strings.Contains(log, c.err) {
				t.Errorf("the log does not say %q:\n%s", c.err, log)
			}
			if n := strings.Count(strings.TrimSpace(log), "\n"); n != 0 || strings.Contains(log, "goroutine") {
				t.Errorf("the log holds %d more line(s) or a stack:\n%s", n, log)
			}
		})
	}
}

// The review's case: a subscription whose name is not UTF-8 (a SQL_ASCII
// subscriber) made every scrape fail; its path is now served, escaped.
func TestANonUTF8SubscriptionNameIsServedEscaped(t *testing.T) {
	col := NewCollector([]monitor.Options{{Pair: "p", Diagnose: diagnose.Options{Publisher: "x", Subscriber: "y"}}})
	col.pairs["p"].Report = &report.Report{WindowS: 30, Paths: []report.Path{
		{Slot: "odd_slot", Subscription: "odd\xff", Verdict: model.Verdict{Name: "caught-up"}},
		{Slot: "odd_slot2", Subscription: "odd\xfe", Verdict: model.Verdict{Name: "caught-up"}},
	}}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(col)
	code, body, log := serve(t, reg)
	if code != http.StatusOK || log != "" {
		t.Fatalf("status %d, log %q", code, log)
	}
	for _, want := range []string{`subscription="odd\\xff"`, `subscription="odd\\xfe"`} { // the exposition doubles a backslash
		if !strings.Contains(body, want) {
			t.Errorf("no series with %s:\n%s", want, body)
		}
	}
	// Every series of a path carries the same label values: escaped once.
	subs := map[string]int{}
	for _, name := range []string{"lagscope_verdict", "lagscope_bottleneck", "lagscope_verdict_confidence_ratio", "lagscope_lag_bytes", "lagscope_path_info"} {
		for _, m := range gatherSeries(t, col, name) {
			subs[m.labels["subscription"]]++
		}
	}
	if len(subs) != 2 || subs[`odd\xff`] == 0 || subs[`odd\xfe`] == 0 {
		t.Errorf("subscription label values %v, want odd\\xff and odd\\xfe only", subs)
	}
}

func TestTheErrorLogHasOneLineWithoutStacksOrPasswords(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"net/http's panic keeps its first line", "http: panic serving 127.0.0.1:5: boom\ngoroutine 7 [running]:\nnet/http.(*conn).serve.func1()\n\t/usr/local/go/src/net/http/server.go:1947 +0xbe\n",
			"http: panic serving 127.0.0.1:5: boom"},
		{"client_golang's recovered panics keep each error", "error gathering metrics: 2 error(s) occurred:\n* collector panic: error=bad\nstack trace=goroutine 57 [running]:\nx.f()\n\t/a.go:1\n\n* collector panic: error=worse\nstack trace=goroutine 58 [running]:\n",
			"error gathering metrics: 2 error(s) occurred: * collector panic: error=bad * collector panic: error=worse"},
		{"a byte that is not UTF-8 is replaced", "label \xff", "label \uFFFD"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := withoutStacks(c.in); got != c.want {
				t.Errorf("withoutStacks(%q) =\n%q, want\n%q", c.in, got, c.want)
			}
		})
	}
	t.Run("a password is removed", func(t *testing.T) {
		if got := withoutStacks("dial host=db password=Zq9secretXk7 failed\n"); strings.Contains(got, "Zq9secretXk7") || !strings.HasPrefix(got, "dial host=db password=") {
			t.Errorf("withoutStacks kept the password or lost the message: %q", got)
		}
	})
}

// A kept-alive connection with no request is closed after IdleTimeout.
func TestAnIdleConnectionIsClosed(t *testing.T) {
	pair := monitor.Options{Pair: "gone", Diagnose: diagnose.Options{Publisher: "host=/nonexistent-lagscope-test port=1 connect_timeout=1"}}
	if err := pair.Validate(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Listen: "127.0.0.1:0", Pairs: []monitor.Options{pair}, IdleTimeout: 300 * time.Millisecond, Ready: func(a net.Addr) { addr <- a }})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("exporter: %v", err)
		}
	}()
	conn, err := net.Dial("tcp", (<-addr).String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	r, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	if r.StatusCode != http.StatusOK || r.Close {
		t.Fatalf("status %d, close %v: want 200 on a kept-alive connection", r.StatusCode, r.Close)
	}
	start := time.Now()
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("read on the idle connection: %v, want EOF (closed by the server)", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the idle connection was closed after %s, want about 300ms", took)
	}
}
