package exporter

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/testkit/labpair"
	"github.com/lagscope/lagscope/internal/testkit/labtest"
)

// scrape reads the exporter's /metrics and returns the value of the first
// series of name whose labels include want (ok false when none).
func scrape(t *testing.T, addr, name string, want map[string]string) (float64, bool) {
	t.Helper()
	r, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer r.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(r.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	mf, ok := mfs[name]
	if !ok {
		return 0, false
	}
	for _, m := range mf.Metric {
		if matches(m, want) {
			return value(m), true
		}
	}
	return 0, false
}

// untilValue waits until name{want} == v, and returns how long it took.
func untilValue(t *testing.T, addr, name string, want map[string]string, v float64, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	waitFor(t, limit, fmt.Sprintf("%s%v == %g", name, want, v), func() (bool, string) {
		got, ok := scrape(t, addr, name, want)
		return ok && got == v, fmt.Sprintf("%g (present %v)", got, ok)
	})
	return time.Since(start)
}

// A server that stops, refuses connections, comes back, or a slot that is
// dropped shows in lagscope_up and the verdict within one window (10 s
// here, stepped every 5 s), while the other pair keeps being served.
func TestIntegrationATargetThatGoesAwayShowsWithinOneWindowAndTheOtherPairKeepsServing(t *testing.T) {
	labtest.Once(t)
	p := labpair.Up(t, "caught-up")
	full, pubOnly := labPair("full", p, true), labPair("pubonly", p, false)
	addr := startExporter(t, full, pubOnly)
	window := full.Window
	ok := func(pair string) float64 {
		v, _ := scrape(t, addr, "lagscope_steps_total", map[string]string{"pair": pair, "result": "ok"})
		return v
	}
	untilValue(t, addr, "lagscope_up", map[string]string{"pair": "full", "server": "subscriber"}, 1, 3*window)
	untilValue(t, addr, "lagscope_up", map[string]string{"pair": "pubonly", "server": "publisher"}, 1, 3*window)

	ctx := context.Background()
	if err := p.Sub.Stop(); err != nil {
		t.Fatal(err)
	}
	before := ok("pubonly")
	took := untilValue(t, addr, "lagscope_up", map[string]string{"pair": "full", "server": "subscriber"}, 0, window)
	t.Logf("subscriber stopped: lagscope_up 0 after %s", took.Round(100*time.Millisecond))
	if v, _ := scrape(t, addr, "lagscope_up", map[string]string{"pair": "full", "server": "publisher"}); v != 1 {
		t.Errorf("publisher of pair full shows up=%g while only the subscriber stopped", v)
	}
	time.Sleep(full.Step + time.Second)
	if after := ok("pubonly"); after <= before {
		t.Errorf("pair pubonly made no step (%g -> %g) while the other pair's subscriber was down", before, after)
	}
	if err := p.Sub.StartAgain(ctx); err != nil {
		t.Fatal(err)
	}
	// Back after the retry backoff (doubling up to the window) and a step.
	took = untilValue(t, addr, "lagscope_up", map[string]string{"pair": "full", "server": "subscriber"}, 1, 3*window)
	t.Logf("subscriber back: lagscope_up 1 after %s", took.Round(100*time.Millisecond))

	// A slot dropped under an enabled subscription: the path is stopped.
	if err := p.SetEnabled(ctx, false); err != nil {
		t.Fatal(err)
	}
	// The walsender ends a moment after the subscription is disabled: the
	// slot can be dropped once it is no longer active.
	waitFor(t, 20*time.Second, "slot "+p.Subscriptions[0]+" dropped", func() (bool, string) {
		err := lab.Exec(ctx, p.Pub.ConnString(lab.Database),
			"SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '"+p.Subscriptions[0]+"'")
		return err == nil, fmt.Sprint(err)
	})
	if err := lab.Exec(ctx, p.Pub.ConnString(lab.Database), "SELECT pg_create_logical_replication_slot('other', 'pgoutput')"); err != nil {
		t.Fatal(err)
	}
	if err := p.SetEnabled(ctx, true); err != nil {
		t.Fatal(err)
	}
	took = untilValue(t, addr, "lagscope_verdict", map[string]string{"pair": "full", "slot": p.Subscriptions[0], "verdict": "stalled"}, 1, 2*window)
	t.Logf("slot dropped: verdict stalled after %s", took.Round(100*time.Millisecond))
	if v, _ := scrape(t, addr, "lagscope_bottleneck", map[string]string{"pair": "full", "slot": p.Subscriptions[0], "stage": "none"}); v != 1 {
		t.Errorf("stalled path: lagscope_bottleneck{stage=none} = %g, want 1", v)
	}

	// The publisher refuses connections: both pairs show it.
	if err := p.Pub.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, pair := range []string{"full", "pubonly"} {
		took = untilValue(t, addr, "lagscope_up", map[string]string{"pair": pair, "server": "publisher"}, 0, window)
		t.Logf("publisher stopped: pair %s lagscope_up 0 after %s", pair, took.Round(100*time.Millisecond))
	}
	if err := p.Pub.StartAgain(ctx); err != nil {
		t.Fatal(err)
	}
	untilValue(t, addr, "lagscope_up", map[string]string{"pair": "pubonly", "server": "publisher"}, 1, 3*window)
	r, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("content type %q", r.Header.Get("Content-Type"))
	}
}
