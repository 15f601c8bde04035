package scenario

import (
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/testkit/labtest"
)

// TestIntegrationWaitSampling runs apply-bound with pg_wait_sampling loaded
// on both servers (where its package is installed for the server version:
// Debian's postgresql-15-pg-wait-sampling): diagnose must read wait events
// from the extension's history at its collector's rate (100 Hz by default,
// five times its own probes) and still name the apply worker.
func TestIntegrationWaitSampling(t *testing.T) {
	dir := labtest.Servers(t)
	if !lab.HaveWaitSampling(dir.Bin) {
		t.Skipf("pg_wait_sampling is not installed for %s (PostgreSQL %s)", dir.Bin, dir.Version)
	}
	var rec *sample.Recording
	r := runScenario(t, "wait-sampling", "apply-bound", func(o *lab.RunOptions) {
		o.Pair.WaitSampling = true
		o.During = diagnoseDuring("wait-sampling", Scenario{}, 0, &rec)
		o.Verify = false
	})
	rep, ok := r.During.(report.Report)
	if !ok {
		t.Fatalf("diagnosis = %#v, want a report", r.During)
	}
	for _, s := range []*report.Server{&rep.Publisher, rep.Subscriber} {
		if s.WaitSource != sample.WaitSampling || s.WaitHz < 50 {
			t.Errorf("server %s: wait events from %q at %.0f Hz, want %s at >= 50 Hz", s.Version, s.WaitSource, s.WaitHz, sample.WaitSampling)
		}
	}
	p := rep.Paths[0]
	if p.Name != "subscriber-apply-cpu" || p.Apply.Probes < 500 {
		t.Errorf("verdict %s with %d apply-worker observations, want subscriber-apply-cpu from >= 500", p.Name, p.Apply.Probes)
	}
	var b strings.Builder
	if err := report.Text(&b, rep); err != nil || !strings.Contains(b.String(), "wait events from pg_wait_sampling at") {
		t.Errorf("the text report (%v) does not name pg_wait_sampling:\n%s", err, b.String())
	}
}
