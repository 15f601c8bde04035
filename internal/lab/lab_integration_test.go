package lab

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/audit"
	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/testkit/labtest"
	"github.com/lagscope/lagscope/internal/units"
)

// integrationOptions finds binaries for the lab's integration tests (skipped
// with -short or when no PostgreSQL is installed) and returns quick-run options.
func integrationOptions(t *testing.T) RunOptions {
	t.Helper()
	dir, pgbench := labtest.PGBench(t)
	return RunOptions{
		PGBench:  pgbench,
		Clients:  16,
		Duration: 10 * time.Second,
		Tick:     time.Second,
		ProbeHz:  10,
		Verify:   true,
		Log:      labtest.Log{T: t},
		Pair: PairOptions{Bin: dir.Bin, PubCPUs: []int{0}, SubCPUs: []int{1}, Rows: 100_000,
			LinkRate: 8_000_000, Binary: true, Streaming: "on"},
	}
}

// runScenario runs one scenario and saves its recording under
// $LAGSCOPE_RECORD_DIR when set (that is how testdata/ is made), named after
// label.
func runScenario(t *testing.T, label, name string, tweak func(*RunOptions)) *Result {
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
		rb, _ := json.Marshal(res.Recording)
		path := filepath.Join(dir, fmt.Sprintf("%s-pg%s-%d.json", label, res.ServerVersion, time.Now().Unix()))
		if err := os.WriteFile(path, rb, 0o644); err != nil {
			t.Errorf("save recording: %v", err)
		}
	}
	return res
}

// diagnoseDuring runs lagscope diagnose against the pair as a user would.
// With $LAGSCOPE_RECORD_DIR set it saves diagnose's own samples there
// (that is how internal/classify/testdata is recorded).
// *rec receives diagnose's samples.
// A scenario whose consumer is not a subscription is diagnosed from the
// publisher only.
func diagnoseDuring(name string, s Scenario, recOut **sample.Recording) func(ctx context.Context, p *Pair) (any, error) {
	return func(ctx context.Context, p *Pair) (any, error) {
		sub := p.Sub.ConnString(Database)
		if s.Consumer != "" {
			sub = ""
		}
		rep, rec, err := diagnose.Run(ctx, diagnose.Options{
			Publisher: p.Pub.ConnString(Database), Subscriber: sub,
			Duration: 10 * time.Second, ProbeHz: 20, Tick: time.Second,
			AlwaysBurst: true, // checkNoProc classifies the samples without /proc
		})
		*recOut = rec
		if dir := os.Getenv("LAGSCOPE_RECORD_DIR"); dir != "" && rec != nil {
			b, _ := json.Marshal(rec)
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("diag-%s-pg%s-%d.json", name, rec.Publisher.Version, time.Now().Unix())), b, 0o644)
		}
		return rep, err
	}
}

// repeats is how many times each scenario runs ($LAGSCOPE_TEST_REPEAT, default 1).
func repeats() int {
	if n, err := strconv.Atoi(os.Getenv("LAGSCOPE_TEST_REPEAT")); err == nil && n > 0 {
		return n
	}
	return 1
}

// TestIntegrationScenarios runs every bottleneck scenario, checks its own
// signature in the lab's measurement, and checks that diagnose, run against
// the pair while the scenario holds, names the scenario's verdict.
func TestIntegrationScenarios(t *testing.T) {
	cases := []struct {
		scenario string
		// label names the subtest and the saved recordings ("" = scenario).
		label string
		// rate is the network scenario's link rate (0 = 4 MB/s).
		rate  units.ByteRate
		check func(t *testing.T, r *Result)
	}{
		{"apply-bound", "", 0, func(t *testing.T, r *Result) {
			// CPU plus run queue: on this shared 2-vCPU VM another tenant can
			// take a tenth of the core (the classifier's BusyDemand rule).
			if d := r.Apply.CPUShare + r.Apply.RunqueueShare; d < 0.85 {
				t.Errorf("apply cpu_share %.2f + runqueue_share %.2f = %.2f, want >= 0.85", r.Apply.CPUShare, r.Apply.RunqueueShare, d)
			}
			if top, share := r.Apply.Top(); top != "CPU" {
				t.Errorf("apply mostly %s (%.0f%%), want mostly CPU", top, 100*share)
			}
			if r.Walsender.RunqueueShare > 0.15 {
				t.Errorf("idle publisher: walsender runqueue_share = %.2f, want <= 0.15", r.Walsender.RunqueueShare)
			}
			wantData(t, r)
		}},
		{"walsender-starved", "", 0, func(t *testing.T, r *Result) {
			if r.Walsender.RunqueueShare < 0.5 {
				t.Errorf("walsender runqueue_share = %.2f, want >= 0.5 (idle case: <= 0.15)", r.Walsender.RunqueueShare)
			}
		}},
		{"network", "", 0, checkNetwork},
		// 8 MB/s (the lab's default): the walsender already uses ~35% of a
		// core here, a less clean signature than at 4 MB/s.
		{"network", "network-8mbps", 8_000_000, checkNetwork},
		{"subscriber-lock", "", 0, func(t *testing.T, r *Result) {
			if share := r.Apply.TypeShare("Lock"); share < 0.5 {
				t.Errorf("apply waited on a Lock in %.0f%% of its probes (%v), want >= 50%%", 100*share, r.Apply.TypeShares)
			}
			if n := blockerTicks(r, LockHolderApp); n == 0 {
				t.Errorf("no tick recorded %s as the apply worker's blocker", LockHolderApp)
			}
			wantData(t, r)
		}},
		{"row-lock", "", 0, func(t *testing.T, r *Result) {
			if share := r.Apply.Share("transactionid"); share < 0.5 {
				t.Errorf("apply waited on a transaction id in %.0f%% of its probes (%v), want >= 50%%", 100*share, r.Apply.WaitShares)
			}
			if n := blockerTicks(r, LockHolderApp); n == 0 {
				t.Errorf("no tick recorded %s as the apply worker's blocker", LockHolderApp)
			}
			wantData(t, r)
		}},
		{"trigger-sleep", "", 0, func(t *testing.T, r *Result) {
			if share := r.Apply.Share("PgSleep"); share < 0.5 {
				t.Errorf("apply slept (PgSleep) in %.0f%% of its probes (%v), want >= 50%%", 100*share, r.Apply.WaitShares)
			}
			wantData(t, r)
		}},
		{"trigger-cpu", "", 0, func(t *testing.T, r *Result) {
			if d := r.Apply.CPUShare + r.Apply.RunqueueShare; d < 0.85 {
				t.Errorf("apply cpu_share %.2f + runqueue_share %.2f = %.2f, want >= 0.85", r.Apply.CPUShare, r.Apply.RunqueueShare, d)
			}
			wantData(t, r)
		}},
		{"missing-column", "", 0, func(t *testing.T, r *Result) {
			// Nothing of the backlog applied: the slot may still confirm
			// an idle server's own records (6 B/s on 16.14), never the
			// backlog's.
			if r.Lag.Total == 0 || r.Lag.Total < r.Lag.Start-(1<<20) || r.ConsumedMBps*1e6 >= 1e3 {
				t.Errorf("confirmed %.6f MB/s, %d of %d bytes left; want nothing applied from the backlog", r.ConsumedMBps, r.Lag.Total, r.Lag.Start)
			}
		}},
		{"conflict-missing", "", 0, func(t *testing.T, r *Result) {
			// The backlog is applied (the updates of missing rows skipped).
			if r.ConsumedMBps <= 0 || r.Lag.Total >= r.Lag.Start {
				t.Errorf("confirmed %.2f MB/s, lag %d of %d bytes; want the backlog applied", r.ConsumedMBps, r.Lag.Total, r.Lag.Start)
			}
		}},
		{"conflict-exists", "", 0, func(t *testing.T, r *Result) {
			// Stopped at the insert: nothing of the backlog behind it applied.
			if r.Lag.Total == 0 || r.Lag.Total < r.Lag.Start-(1<<20) || r.ConsumedMBps*1e6 >= 1e3 {
				t.Errorf("confirmed %.6f MB/s, %d of %d bytes left; want nothing applied from the backlog", r.ConsumedMBps, r.Lag.Total, r.Lag.Start)
			}
		}},
		{"full-identity", "", 0, func(t *testing.T, r *Result) {
			if r.Lag.Total >= 16<<20 {
				t.Errorf("lag %d bytes at the window's end, want a small backlog (< 16 MB)", r.Lag.Total)
			}
			if d := r.Apply.CPUShare + r.Apply.RunqueueShare; d < 0.85 {
				t.Errorf("apply cpu_share %.2f + runqueue_share %.2f = %.2f, want >= 0.85", r.Apply.CPUShare, r.Apply.RunqueueShare, d)
			}
			if r.DrainedEarly {
				t.Errorf("the backlog drained before the window ended")
			}
			wantData(t, r)
		}},
		{"full-identity-index", "", 0, func(t *testing.T, r *Result) {
			// The apply worker finds each row by the index: it works at
			// apply-bound's pace, on its CPU, instead of scanning hot.
			if d := r.Apply.CPUShare + r.Apply.RunqueueShare; d < 0.85 {
				t.Errorf("apply cpu_share %.2f + runqueue_share %.2f = %.2f, want >= 0.85", r.Apply.CPUShare, r.Apply.RunqueueShare, d)
			}
			wantData(t, r)
		}},
		// 500 kB/s: the 100k rows (~14 MB) take ~30 s to copy, longer than
		// diagnose's 10 s window.
		{"subscriber-starved", "", 0, func(t *testing.T, r *Result) {
			if r.Apply.RunqueueShare < 0.3 {
				t.Errorf("apply runqueue_share %.2f (cpu %.2f) beside %s, want >= 0.3", r.Apply.RunqueueShare, r.Apply.CPUShare, HogApp)
			}
			wantData(t, r)
		}},
		{"cpu-quota", "", 0, func(t *testing.T, r *Result) {
			if th := r.Apply.Throttle; th.Share < 0.5 || r.Apply.RunqueueShare < 0.3 {
				t.Errorf("apply cgroup %q throttled in %.0f%% of its periods, run queue %.0f%%: want >= 50%% and >= 30%%", th.Cgroup, 100*th.Share, 100*r.Apply.RunqueueShare)
			}
			wantData(t, r)
		}},
		{"initial-sync", "", 500_000, func(t *testing.T, r *Result) {
			copying := ticksWhere(r, func(tk sample.Tick) bool { return len(tk.Copies) > 0 })
			if copying < 3 {
				t.Errorf("pg_stat_progress_copy showed the tablesync COPY at %d ticks, want >= 3", copying)
			}
			wantData(t, r)
		}},
		{"parallel-apply", "", 0, func(t *testing.T, r *Result) {
			withWorker := ticksWhere(r, func(tk sample.Tick) bool {
				return len(tk.Subs) > 0 && len(tk.Subs[0].ParallelWorkers) > 0
			})
			if withWorker < 3 {
				t.Errorf("a parallel apply worker ran at %d ticks, want >= 3", withWorker)
			}
			wantData(t, r)
		}},
		{"slow-consumer", "", 0, func(t *testing.T, r *Result) {
			if top, share := r.Walsender.Top(); top != "WalSenderWriteData" {
				t.Errorf("walsender mostly %s (%.0f%%), want WalSenderWriteData", top, 100*share)
			}
		}},
		{"lazy-confirmer", "", 0, func(t *testing.T, r *Result) {
			if share := r.Walsender.Share("WalSenderWaitForWAL"); share < 0.5 || r.Lag.Total < 16<<20 {
				t.Errorf("walsender waited for WAL in %.0f%% of probes with %d bytes unconfirmed: want most, and 16 MB+", 100*share, r.Lag.Total)
			}
		}},
		{"standby-slots", "", 0, func(t *testing.T, r *Result) {
			if share := r.Walsender.Share("WaitForStandbyConfirmation"); share < 0.5 {
				t.Errorf("walsender waited for the standby in %.0f%% of its probes (%v), want >= 50%%", 100*share, r.Walsender.WaitShares)
			}
		}},
		{"lost-slot", "", 0, func(t *testing.T, r *Result) {
			lost := ticksWhere(r, func(tk sample.Tick) bool { return len(tk.Slots) > 0 && tk.Slots[0].WALStatus == "lost" })
			if lost < 3 {
				t.Errorf("the slot was lost at %d ticks, want >= 3", lost)
			}
		}},
		{"sub-read-io", "", 0, func(t *testing.T, r *Result) {
			if share := r.Apply.Share("DataFileRead"); share < 0.4 {
				t.Errorf("apply waited on DataFileRead in %.0f%% of its probes (%v), want >= 40%%", 100*share, r.Apply.WaitShares)
			}
			wantData(t, r)
		}},
		{"sub-cpu-io", "", 0, func(t *testing.T, r *Result) {
			if cpu, share := r.Apply.CPUShare, r.Apply.Share("DataFileRead"); cpu < 0.4 || share < 0.2 {
				t.Errorf("apply CPU %.0f%%, DataFileRead %.0f%% of its probes: want a mix (>= 40%% and >= 20%%)", 100*cpu, 100*share)
			}
			wantData(t, r)
		}},
		{"sync-standby", "", 0, func(t *testing.T, r *Result) {
			if share := r.Apply.Share("SyncRep"); share < 0.5 {
				t.Errorf("apply waited on SyncRep in %.0f%% of its probes (%v), want >= 50%%", 100*share, r.Apply.WaitShares)
			}
			wantData(t, r)
		}},
		{"wal-read-io", "", 0, func(t *testing.T, r *Result) {
			if share := r.Walsender.Share("WALRead"); share < 0.5 {
				t.Errorf("walsender waited on WALRead in %.0f%% of its probes (%v), want >= 50%%", 100*share, r.Walsender.WaitShares)
			}
			wantData(t, r)
		}},
		{"big-txn", "", 0, func(t *testing.T, r *Result) {
			// The walsender sends one transaction while it handles the
			// commit record: its sent_lsn stands still.
			moved := ticksWhere(r, func(tk sample.Tick) bool {
				return len(tk.Senders) > 0 && len(r.Recording.Ticks) > 0 && len(r.Recording.Ticks[0].Senders) > 0 &&
					tk.Senders[0].Sent != r.Recording.Ticks[0].Senders[0].Sent
			})
			if moved > 0 {
				t.Errorf("sent_lsn moved at %d ticks, want it still while the transaction is sent", moved)
			}
			if d := r.Apply.CPUShare + r.Apply.RunqueueShare; d < 0.6 {
				t.Errorf("apply cpu_share %.2f + runqueue_share %.2f = %.2f, want >= 0.6: applying the transaction", r.Apply.CPUShare, r.Apply.RunqueueShare, d)
			}
			wantData(t, r)
		}},
		{"big-txn-decoding", "", 0, func(t *testing.T, r *Result) {
			if d := r.Walsender.CPUShare + r.Walsender.RunqueueShare; d < 0.6 || r.Apply.Share("LogicalApplyMain") < 0.5 {
				t.Errorf("walsender CPU + run queue %.2f, apply waiting for data %.0f%%: want the walsender busy decoding (>= 0.6) and the apply worker idle", d, 100*r.Apply.Share("LogicalApplyMain"))
			}
			wantData(t, r)
		}},
		{"open-txn", "", 0, func(t *testing.T, r *Result) {
			var last sample.Tick
			for _, tk := range r.Recording.Ticks {
				if tk.PubOK && len(tk.Slots) > 0 {
					last = tk
				}
			}
			if len(last.Slots) == 0 || int64(last.CurrentLSN)-int64(last.Slots[0].RestartLSN) < 64<<20 || last.Slots[0].SpillBytes == 0 {
				t.Errorf("slots %+v at current %d: want restart_lsn 64 MB+ behind and spilled bytes", last.Slots, last.CurrentLSN)
			}
			wantData(t, r)
		}},
		{"decode-bound", "", 0, func(t *testing.T, r *Result) {
			if d := r.Walsender.CPUShare + r.Walsender.RunqueueShare; d < 0.85 {
				t.Errorf("walsender cpu_share %.2f + runqueue_share %.2f = %.2f, want >= 0.85", r.Walsender.CPUShare, r.Walsender.RunqueueShare, d)
			}
			if share := r.Apply.Share("LogicalApplyMain"); share < 0.5 {
				t.Errorf("apply waiting for data in %.0f%% of probes, want most", 100*share)
			}
		}},
		{"stalled", "", 0, func(t *testing.T, r *Result) {
			if r.ConsumedMBps != 0 || r.GeneratedMBps <= 0 {
				t.Errorf("consumed %.2f MB/s, generated %.2f MB/s; want 0 and > 0", r.ConsumedMBps, r.GeneratedMBps)
			}
		}},
		{"caught-up", "", 0, func(t *testing.T, r *Result) {
			if r.Lag.Total > 16<<20 || r.GeneratedMBps <= 0 {
				t.Errorf("lag %d bytes at %.2f MB/s generated; want a small lag under real load", r.Lag.Total, r.GeneratedMBps)
			}
			wantData(t, r)
		}},
	}
	for _, c := range cases {
		s, _ := Lookup(c.scenario, false)
		label, rate := c.label, c.rate
		if label == "" {
			label = c.scenario
		}
		if rate == 0 {
			rate = 4_000_000
		}
		for i := 1; i <= repeats(); i++ {
			t.Run(fmt.Sprintf("%s/run%d", label, i), func(t *testing.T) {
				if onceBefore18[label] && labtest.Servers(t).Version.Major < 18 && os.Getenv("LAGSCOPE_TEST_ONCE") != "1" {
					t.Skipf("%s: before 18 every version says the same (no conflict counters): runs on one (LAGSCOPE_TEST_ONCE=1)", label)
				}
				if byHand[label] && os.Getenv("LAGSCOPE_TEST_BY_HAND") == "" {
					t.Skipf("%s: the lab does not make its state reliably on 2 shared vCPUs (see byHand); run it by hand with LAGSCOPE_TEST_BY_HAND=1", label)
				}
				if s.PubReadLimit > 0 || s.SubReadLimit > 0 {
					if err := ReadLimitAvailable(""); err != nil {
						t.Skipf("%s needs a cgroup disk read limit: %v", c.scenario, err)
					}
				}
				if s.SubCPULimit > 0 {
					if err := CPULimitAvailable(); err != nil {
						t.Skipf("%s needs a cgroup CPU limit: %v", c.scenario, err)
					}
				}
				if v := labtest.Servers(t).Version; s.RowFilter != "" && v.Major < 15 {
					t.Skipf("%s uses a publication row filter: PostgreSQL 15+, this is %s", c.scenario, v)
				} else if v.Major < s.MinMajor {
					t.Skipf("%s uses %s: PostgreSQL %d+, this is %s", c.scenario, s.Needs, s.MinMajor, v)
				}
				first := i == 1
				var rec *sample.Recording
				r := runScenario(t, label, c.scenario, func(o *RunOptions) {
					// 4 MB/s unless the case says otherwise: on this 2-vCPU VM a
					// walsender feeding 8 MB/s already uses ~35% of a core (a
					// send() per change), which blurs the network signature;
					// the lab's default stays seed 000's 8 MB/s.
					o.Pair.LinkRate = rate
					o.During = diagnoseDuring(label, s, &rec)
					o.Verify = first // later runs only repeat the diagnosis
				})
				c.check(t, r)
				rep, ok := r.During.(report.Report)
				if !ok {
					t.Fatalf("diagnosis = %#v, want a report", r.During)
				}
				p := scenarioPath(t, rep, s)
				if got := string(p.Name); got != s.Verdict && got != alsoRight[label] {
					t.Errorf("diagnose named %s (confidence %.2f, evidence %q), want %s", got, p.Confidence, p.Evidence, s.Verdict)
				}
				checkDiagnosis(t, label, p)
				if strings.HasPrefix(label, "conflict-") {
					checkConflictFinding(t, label, rec)
				}
				checkNoProc(t, label, s, rec)
			})
		}
	}
}

// byHand are the cases CI leaves out ($LAGSCOPE_TEST_BY_HAND=1 runs them).
// network-8mbps: at 8 MB/s the walsender itself needs half a core here (a
// send per change), so on a busy host the user-space link is not quite the
// only limit: a fresh-clone run on 15.18 measured the link at 7.41 MB/s
// (-7.3%) with the walsender on a CPU in 61% of its probes (the verdict
// was still network, 0.56). The 4 MB/s case stays in CI; the 8 MB/s one
// comes back when the link is shaped in the kernel (issue 13).
//
// full-identity-index: 16+ only (18 in CI); the cause it names is checked
// on its recordings by the unit tests (internal/diagnose), so the lab run
// (about 35 s) is left to by-hand runs, out of CI's time.
var byHand = map[string]bool{"network-8mbps": true, "full-identity-index": true}

// alsoRight names, per case, a second verdict that is as true to the state
// the lab made as the scenario's: an apply worker splitting its time
// between CPU and reads from a fast disk is named CPU-bound or waiting on
// its disk by a split that depends on the disk, as long as the evidence
// names both parts (checkDiagnosis).
// onceBefore18 are the cases whose point before 18 does not depend on the
// version (the report says conflicts are not counted): make test runs them
// on one version below 18, and on every version from 18.
var onceBefore18 = map[string]bool{"conflict-missing": true, "conflict-exists": true}

var alsoRight = map[string]string{"sub-cpu-io": string(model.SubscriberWaits)}

// noProcExact are the cases that must keep their verdict without /proc:
// the publisher's CPU burst tells a starved walsender from the link.
var noProcExact = map[string]bool{"walsender-starved": true, "network": true, "network-8mbps": true}

// checkNoProc classifies diagnose's samples again as 'diagnose --no-proc'
// would have made them (the same reads from the servers, no /proc figures):
// the cases in noProcExact must keep their verdict; every other case keeps
// it, says inconclusive, or names another verdict at a confidence of at
// most 0.6.
func checkNoProc(t *testing.T, label string, s Scenario, rec *sample.Recording) {
	t.Helper()
	if rec == nil {
		t.Fatal("no samples from diagnose")
	}
	p := scenarioPath(t, diagnose.Build(rec.WithoutProc(), nil, 20), s)
	t.Logf("without /proc: %s (confidence %.2f), evidence %q", p.Name, p.Confidence, p.Evidence)
	switch {
	case string(p.Name) == s.Verdict:
	case noProcExact[label]:
		t.Errorf("without /proc diagnose named %s (confidence %.2f, evidence %q), want %s", p.Name, p.Confidence, p.Evidence, s.Verdict)
	case p.Name != model.Inconclusive && p.Confidence > 0.6:
		t.Errorf("without /proc diagnose named %s at confidence %.2f (evidence %q): the lab made %s; a wrong verdict must stay at 0.6 or under", p.Name, p.Confidence, p.Evidence, s.Verdict)
	}
}

func checkNetwork(t *testing.T, r *Result) {
	t.Helper()
	if r.Link == nil {
		t.Fatal("no link measurement")
	}
	if r.Link.Error < -0.05 || r.Link.Error > 0.05 {
		t.Errorf("link measured %.2f MB/s for %.2f MB/s configured (%+.1f%%), want within 5%%", r.Link.MeasuredMBps, r.Link.ConfiguredMBps, 100*r.Link.Error)
	}
	if top, share := r.Walsender.Top(); top != "WalSenderWriteData" {
		t.Errorf("walsender mostly %s (%.0f%%), want WalSenderWriteData", top, 100*share)
	}
	wantData(t, r)
}

// scenarioPath picks the path the scenario is about: its one subscription's
// slot, or for initial-sync the tablesync worker's slot beside it.
func scenarioPath(t *testing.T, rep report.Report, s Scenario) report.Path {
	t.Helper()
	want := 1
	if s.InitialSync {
		want = 2
	}
	if len(rep.Paths) != want {
		var slots []string
		for _, p := range rep.Paths {
			slots = append(slots, p.Slot+" "+string(p.Name))
		}
		t.Fatalf("diagnosis has %d path(s) %q, want %d", len(rep.Paths), slots, want)
	}
	for _, p := range rep.Paths {
		if !s.InitialSync || strings.Contains(p.Slot, "_sync_") {
			return p
		}
	}
	t.Fatalf("no tablesync slot among %d paths", len(rep.Paths))
	return report.Path{}
}

// checkDiagnosis checks what a case's verdict must say beyond its name (by
// the case's label):
// the link's next limit and headroom, the lock's holder, the small backlog's
// lag in time.
func checkDiagnosis(t *testing.T, scenario string, p report.Path) {
	t.Helper()
	switch scenario {
	case "network", "network-8mbps":
		// Behind the link the walsender and the apply worker are about as
		// busy: which one is next is a coin toss (fresh-clone runs on
		// 15.18: at 8 MB/s the walsender at 52% beside the apply worker's
		// 38%; at 4 MB/s both at 24%, the walsender named). What the lab
		// makes is the link as the limit with room behind it.
		if p.Limit != model.StageLink || p.Next == nil || p.Next.Headroom <= 1 {
			t.Errorf("limit %q next %+v, want the link with a next limit at a headroom above 1x", p.Limit, p.Next)
		}
	case "subscriber-lock":
		found := false
		for _, b := range p.Blockers {
			found = found || b.AppName == LockHolderApp
		}
		if p.Limit != model.StageApply || !found {
			t.Errorf("limit %q blockers %+v, want the apply stage blocked by %s", p.Limit, p.Blockers, LockHolderApp)
		}
	case "row-lock":
		if p.Name != model.SubscriberWaits || !strings.Contains(p.Cause, "row locks") || !strings.Contains(p.Cause, LockHolderApp) {
			t.Errorf("cause %q, want the row locks and their holder (%s) named", p.Cause, LockHolderApp)
		}
	case "trigger-sleep", "trigger-cpu":
		did := map[string]string{"trigger-sleep": "PgSleep", "trigger-cpu": "ran on a CPU"}[scenario]
		if !strings.Contains(p.Cause, "Trigger "+TriggerName) || !strings.Contains(p.Cause, did) {
			t.Errorf("cause %q, want trigger %s named with what the apply worker did in it (%s)", p.Cause, TriggerName, did)
		}
		if len(p.Helps) == 0 || !strings.Contains(p.Helps[0].Said(), "ENABLE TRIGGER "+TriggerName) {
			t.Errorf("helps %q, want the trigger's ALTER TABLE ... ENABLE TRIGGER first", p.Helps)
		}
		for _, h := range model.Texts(p.Helps) {
			for _, wrong := range []string{"disk", "indexes", "replica identity", "binary = true"} {
				if strings.Contains(h, wrong) {
					t.Errorf("help %q: the setup rules it out (the trigger is the cause; no extra index, no FULL identity)", h)
				}
			}
		}
	case "conflict-missing", "conflict-exists":
		kind := map[string]string{"conflict-missing": "update_missing", "conflict-exists": "insert_exists"}[scenario]
		c := p.Conflicts
		switch v := labtest.Servers(t).Version; {
		case c == nil:
			t.Errorf("no conflicts in the report")
		case v.Major >= 18 && (!c.Counted || c.Rose[kind] == 0 || !strings.Contains(c.Text, kind)):
			t.Errorf("conflicts %+v: want %s counted and named on %s", c, kind, v)
		case v.Major < 18 && (c.Counted || !strings.Contains(c.Text, "not counted")):
			t.Errorf("conflicts %+v: want 'not counted' on %s, and what to look at instead", c, v)
		default:
			t.Logf("%s on %s: conflicts %s", scenario, v, c.Text)
		}
		if scenario == "conflict-exists" && !strings.Contains(p.Cause, "apply_error_count") {
			t.Errorf("cause %q, want the apply errors", p.Cause)
		}
	case "missing-column":
		if !strings.Contains(p.Cause, "missing on the subscriber: "+MissingColumn+" ") {
			t.Errorf("cause %q, want the missing column named", p.Cause)
		}
	case "decode-bound":
		if !strings.Contains(p.Cause, "WHERE") || len(p.Helps) == 0 || !strings.Contains(p.Helps[0].Said(), "ALTER PUBLICATION") {
			t.Errorf("cause %q, helps %q: want the publication's row filter named, its ALTER PUBLICATION first", p.Cause, p.Helps)
		}
		for _, h := range model.Texts(p.Helps) {
			if strings.Contains(h, "fewer slots") || strings.Contains(h, "logical_decoding_work_mem large enough") {
				t.Errorf("help %q: the lab's publisher has one slot and spills nothing", h)
			}
		}
	case "full-identity-index":
		// The index the 16+ apply worker finds rows by is named, with the
		// scans it made; no advice to create one or to drop indexes.
		if !strings.Contains(p.Cause, "finds its rows by") || !strings.Contains(p.Cause, FullIndexName) || !strings.Contains(p.Cause, "index scans") {
			t.Errorf("cause %q: want the index %s named, with its scans", p.Cause, FullIndexName)
		}
		for _, h := range model.Texts(p.Helps) {
			if strings.Contains(h, "CREATE INDEX") || strings.Contains(h, "DROP INDEX") || strings.Contains(h, "fewer indexes") {
				t.Errorf("help %q: the apply worker uses the only index there is", h)
			}
		}
	case "parallel-apply":
		if p.Limit != model.StageParallel {
			t.Errorf("limit %q, want the parallel apply worker", p.Limit)
		}
	case "lost-slot":
		if !strings.Contains(p.Cause, "invalidated") && !strings.Contains(p.Cause, "lost") {
			t.Errorf("cause %q, want the lost slot named", p.Cause)
		}
	case "sub-cpu-io":
		ev := strings.Join(p.Evidence, " ")
		named := strings.Contains(ev, "waited on I/O")
		if p.Name == model.SubscriberWaits {
			named = strings.Contains(ev, "also ran on a CPU") && strings.Contains(ev, "DataFileRead")
		}
		if p.Limit != model.StageApply || !named {
			t.Errorf("%s limit %q, evidence %q: want the apply stage with both its CPU and its I/O part named", p.Name, p.Limit, p.Evidence)
		}
	case "sync-standby":
		if !strings.Contains(strings.Join(p.Evidence, " "), "synchronous standby") {
			t.Errorf("evidence %q, want the synchronous standby named", p.Evidence)
		}
	case "big-txn", "big-txn-decoding", "open-txn":
		want := map[string]string{"big-txn": model.TxnSending, "big-txn-decoding": model.TxnDecoding, "open-txn": model.TxnOpen}[scenario]
		if p.Txn == nil || p.Txn.Phase != want {
			t.Fatalf("large transaction %+v, want phase %s", p.Txn, want)
		}
		if scenario == "big-txn" && p.Limit != model.StageApply && !readingSpillLimits(p) {
			t.Errorf("limit %q, want the apply worker (or the walsender reading the spilled transaction back while the apply worker waits for it)", p.Limit)
		}
		if scenario == "big-txn-decoding" && p.Limit != model.StageWalsender {
			t.Errorf("limit %q, want the walsender", p.Limit)
		}
		if scenario == "open-txn" && (p.Txn.Xact == nil || p.Txn.Xact.AppName != OpenTxnApp) {
			t.Errorf("open transaction %+v, want the session %s", p.Txn.Xact, OpenTxnApp)
		}
	case "cpu-quota":
		if !strings.Contains(p.Cause, "CPU quota") {
			t.Errorf("cause %q, want the CPU quota named", p.Cause)
		}
	case "full-identity":
		if p.LagBytes >= model.CaughtUpLag || p.LagTime.Seconds <= model.CaughtUpTime {
			t.Errorf("lag %d bytes, %.1f s in time: want a byte-small backlog more than %.0f s long", p.LagBytes, p.LagTime.Seconds, model.CaughtUpTime)
		}
		if !strings.Contains(p.Cause, "public.hot has REPLICA IDENTITY FULL") || len(p.Helps) == 0 || !strings.Contains(p.Helps[0].Said(), "public.hot") {
			t.Errorf("cause %q, helps %q: want public.hot's FULL identity without a usable index named, its fix first", p.Cause, p.Helps)
		}
		// The apply worker's scans, counted in pg_stat_user_tables: each
		// change reads part of hot's 100k rows.
		if !strings.Contains(p.Cause, "; measured in the window: ") || !strings.Contains(p.Cause, "rows read per second") {
			t.Errorf("cause %q: want the rows its sequential scans read per second", p.Cause)
		}
		for _, w := range p.Tables {
			t.Logf("%s.%s in %.1f s: %d updated, %d seq scans, %d rows read by them (%.0f/s, %.0f per row changed), %d index scans",
				w.Schema, w.Name, w.Seconds, w.Updated, w.SeqScans, w.SeqRead, w.PerSecond(w.SeqRead), w.SeqReadPerChange(), w.IdxScans)
		}
	case "apply-bound":
		// 3 indexes the publisher lacks: named, with what they cost in WAL.
		if !strings.Contains(p.Cause, "Table public.hot has 3 indexes") || !strings.Contains(p.Cause, "the WAL it was sent") ||
			len(p.Helps) == 0 || !strings.Contains(p.Helps[0].Said(), "DROP INDEX") {
			t.Errorf("cause %q, helps %q: want hot's 3 extra indexes and the subscriber's WAL ratio named, DROP INDEX first", p.Cause, p.Helps)
		}
		if p.SubWALPerSent < 1 {
			t.Errorf("the subscriber wrote %.2fx the WAL it was sent: want at least as much (it applies every change and its indexes)", p.SubWALPerSent)
		}
	}
}

// blockerTicks counts the ticks that name a session of application app as
// a replication worker's blocker.
func blockerTicks(r *Result, app string) int {
	return ticksWhere(r, func(tk sample.Tick) bool {
		for _, b := range tk.Blockers {
			if b.AppName == app {
				return true
			}
		}
		return false
	})
}

// ticksWhere counts the ticks of the lab's recording for which f is true.
func ticksWhere(r *Result, f func(sample.Tick) bool) int {
	n := 0
	for _, tk := range r.Recording.Ticks {
		if f(tk) {
			n++
		}
	}
	return n
}

func wantData(t *testing.T, r *Result) {
	t.Helper()
	if r.DataDetail == "" && r.DataMatches == nil {
		return // not verified in this run (a repeat)
	}
	if r.DataMatches == nil || !*r.DataMatches {
		t.Errorf("data after drain: %v %s", r.DataMatches, r.DataDetail)
	}
}

// checkConflictFinding runs 'lagscope check”s checks over the setup
// diagnose read after its window: on 18+ apply-errors names the scenario's
// conflict kind.
func checkConflictFinding(t *testing.T, scenario string, rec *sample.Recording) {
	t.Helper()
	if labtest.Servers(t).Version.Major < 18 {
		return
	}
	kind := map[string]string{"conflict-missing": "update_missing", "conflict-exists": "insert_exists"}[scenario]
	var snaps audit.Snapshots
	if err := json.Unmarshal(rec.Setup, &snaps); err != nil {
		t.Fatalf("setup: %v (%s)", err, rec.SetupError)
	}
	for _, r := range audit.Run(snaps, audit.All) {
		for _, f := range r.Findings {
			if r.Check == "apply-errors" && strings.Contains(f.Found, kind) {
				t.Logf("check: %s", f.Found)
				return
			}
		}
	}
	t.Errorf("no apply-errors finding names %s", kind)
}

// readingSpillLimits says whether the walsender limited a large
// transaction's sending by reading its spilled part back from disk: its
// ReorderBufferRead waits 15% of the window or more while the apply worker
// waited for data 10% or more. The lab spills big-txn's transaction (64 kB
// of logical_decoding_work_mem); on 18.4, late in a full make test, one run
// of nine read it back that slowly (ReorderBufferRead 22%, the apply worker
// waiting 16%, 84% busy) where eight alone did not (apply 95-100% busy).
func readingSpillLimits(p report.Path) bool {
	if p.Limit != model.StageWalsender {
		return false
	}
	for _, st := range p.Stages {
		if st.Name == model.StageApply {
			return p.Walsender.WaitShares["ReorderBufferRead"] >= 0.15 && st.Starved >= 0.1
		}
	}
	return false
}
