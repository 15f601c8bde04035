package lab

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/pgbin"
)

// integrationOptions finds binaries for the lab's integration tests (skipped
// with -short or when no PostgreSQL is installed) and returns quick-run options.
func integrationOptions(t *testing.T) RunOptions {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: runs without -short")
	}
	dir, err := pgbin.Find(pgbin.FindOptions{})
	if err != nil {
		t.Skipf("no PostgreSQL server binaries (%v): run scripts/install-deps.sh or set LAGSCOPE_PG_BIN", err)
	}
	pgbench, err := dir.Tool("pgbench")
	if err != nil {
		t.Skipf("no pgbench: %v", err)
	}
	return RunOptions{
		PGBench:  pgbench,
		Clients:  16,
		Duration: 10 * time.Second,
		Tick:     time.Second,
		ProbeHz:  10,
		Verify:   true,
		Log:      testLog{t},
		Pair: PairOptions{Bin: dir.Bin, PubCPUs: []int{0}, SubCPUs: []int{1}, Rows: 100_000,
			LinkRate: 8_000_000, Binary: true, Streaming: "on"},
	}
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) { l.t.Log(string(p)); return len(p), nil }

// runScenario runs one scenario and saves its recording under
// $LAGSCOPE_RECORD_DIR when set (that is how testdata/ is made).
func runScenario(t *testing.T, name string, tweak func(*RunOptions)) *Result {
	t.Helper()
	o := integrationOptions(t)
	if tweak != nil {
		tweak(&o)
	}
	s, err := Lookup(name, false)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	res, err := Run(ctx, s, o)
	if err != nil {
		t.Fatalf("lab run %s: %v", name, err)
	}
	b, _ := json.Marshal(res)
	t.Logf("%s took %s: %s", name, time.Since(start).Round(time.Second), b)
	if dir := os.Getenv("LAGSCOPE_RECORD_DIR"); dir != "" {
		rb, _ := json.MarshalIndent(res.Recording, "", " ")
		path := filepath.Join(dir, name+"-pg"+res.ServerVersion+".json")
		if err := os.WriteFile(path, rb, 0o644); err != nil {
			t.Errorf("save recording: %v", err)
		}
	}
	return res
}

func TestIntegrationApplyBoundSaturatesTheApplyWorker(t *testing.T) {
	r := runScenario(t, "apply-bound", nil)
	if r.Apply.CPUShare < 0.8 {
		t.Errorf("apply cpu_share = %.2f, want >= 0.8", r.Apply.CPUShare)
	}
	if top, share := r.Apply.Top(); top != "CPU" {
		t.Errorf("apply mostly %s (%.0f%%), want mostly CPU", top, 100*share)
	}
	if r.DataMatches == nil || !*r.DataMatches {
		t.Errorf("data after drain: %v %s", r.DataMatches, r.DataDetail)
	}
}

func TestIntegrationNetworkHoldsTheLinkRateAndTheWalsenderWaitsForTheSocket(t *testing.T) {
	r := runScenario(t, "network", nil)
	if r.Link == nil {
		t.Fatal("no link measurement")
	}
	if r.Link.Error < -0.05 || r.Link.Error > 0.05 {
		t.Errorf("link measured %.2f MB/s for %.2f MB/s configured (%+.1f%%), want within 5%%", r.Link.MeasuredMBps, r.Link.ConfiguredMBps, 100*r.Link.Error)
	}
	if top, share := r.Walsender.Top(); top != "WalSenderWriteData" {
		t.Errorf("walsender mostly %s (%.0f%%), want WalSenderWriteData", top, 100*share)
	}
	if r.DataMatches == nil || !*r.DataMatches {
		t.Errorf("data after drain: %v %s", r.DataMatches, r.DataDetail)
	}
}

func TestIntegrationWalsenderStarvedHasFarMoreRunQueueDelayThanIdle(t *testing.T) {
	busy := runScenario(t, "walsender-starved", nil)
	idle := runScenario(t, "apply-bound", nil)
	if busy.Walsender.RunqueueShare < 0.25 || busy.Walsender.RunqueueShare < 3*idle.Walsender.RunqueueShare {
		t.Errorf("walsender runqueue_share busy %.2f vs idle %.2f, want >= 0.25 and >= 3x idle",
			busy.Walsender.RunqueueShare, idle.Walsender.RunqueueShare)
	}
}

func TestIntegrationDecodeBoundKeepsTheWalsenderOnACoreWhileApplyWaits(t *testing.T) {
	r := runScenario(t, "decode-bound", nil)
	if r.Walsender.CPUShare < 0.8 {
		t.Errorf("walsender cpu_share = %.2f, want >= 0.8", r.Walsender.CPUShare)
	}
	if share := r.Apply.Share("LogicalApplyMain"); share < 0.5 {
		t.Errorf("apply waiting for data in %.0f%% of probes, want most", 100*share)
	}
}

func TestIntegrationStalledConsumesNothingWhileWALGrows(t *testing.T) {
	r := runScenario(t, "stalled", nil)
	if r.ConsumedMBps != 0 || r.GeneratedMBps <= 0 {
		t.Errorf("consumed %.2f MB/s, generated %.2f MB/s; want 0 and > 0", r.ConsumedMBps, r.GeneratedMBps)
	}
}

func TestIntegrationCaughtUpKeepsTheLagSmall(t *testing.T) {
	r := runScenario(t, "caught-up", nil)
	if r.Lag.Total > 16<<20 || r.GeneratedMBps <= 0 {
		t.Errorf("lag %d bytes at %.2f MB/s generated; want a small lag under real load", r.Lag.Total, r.GeneratedMBps)
	}
	if r.DataMatches == nil || !*r.DataMatches {
		t.Errorf("data after drain: %v %s", r.DataMatches, r.DataDetail)
	}
}
