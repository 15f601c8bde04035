package exporter

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/testkit/labpair"
	"github.com/lagscope/lagscope/internal/testkit/labtest"
)

// lagscopeSessions counts the sessions lagscope has open on the server of
// dsn (application_name lagscope), besides this one.
func lagscopeSessions(t *testing.T, dsn string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var n int
	if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'lagscope' AND pid <> pg_backend_pid()").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestIntegrationAPublisherOfTwoPairsIsSampledOnce watches one publisher
// through two pairs (its subscriber, and the publisher alone) and counts
// lagscope's sessions on it over two steps, once both pairs are served:
// one sampler reads it for both, so one session (a sampler per pair kept
// two).
func TestIntegrationAPublisherOfTwoPairsIsSampledOnce(t *testing.T) {
	labtest.Once(t)
	p := labpair.Up(t, "caught-up")
	full, pubOnly := labPair("full", p, true), labPair("pubonly", p, false)
	addr := startExporter(t, full, pubOnly)
	for _, pair := range []string{"full", "pubonly"} {
		untilValue(t, addr, "lagscope_up", map[string]string{"pair": pair, "server": "publisher"}, 1, 3*full.Window)
	}
	steps := func(pair string) float64 {
		v, _ := scrape(t, addr, "lagscope_steps_total", map[string]string{"pair": pair, "result": "ok"})
		return v
	}
	before := map[string]float64{"full": steps("full"), "pubonly": steps("pubonly")}
	most, least := 0, 1<<30
	for end := time.Now().Add(2 * full.Step); time.Now().Before(end); time.Sleep(500 * time.Millisecond) {
		n := lagscopeSessions(t, p.Pub.ConnString(lab.Database))
		most, least = max(most, n), min(least, n)
	}
	t.Logf("lagscope sessions on the publisher over two steps: %d to %d", least, most)
	if most != 1 {
		t.Errorf("lagscope had up to %d sessions on the publisher of two pairs, want 1 (one sampler for both)", most)
	}
	for pair, b := range before {
		if after := steps(pair); after < b+1 {
			t.Errorf("pair %s made no step while its publisher was shared (%g -> %g)", pair, b, after)
		}
	}
	if v, _ := scrape(t, addr, "lagscope_up", map[string]string{"pair": "full", "server": "subscriber"}); v != 1 {
		t.Errorf("the subscriber of pair full shows up=%g", v)
	}
}
