package model

import (
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/topology"
)

// proc builds a role's measurement: CPU and run-queue shares of a core and
// wait-event shares of 200 probes (the rest counts as CPU).
func proc(cpu, runq float64, waits map[string]float64) measure.Proc {
	p := measure.Proc{Count: 1, CPUShare: cpu, RunqueueShare: runq, Probes: 200,
		WaitShares: map[string]float64{}, TypeShares: map[string]float64{}}
	rest := 1.0
	for ev, share := range waits {
		p.WaitShares[ev] = share
		p.TypeShares[eventType(ev)] += share
		rest -= share
	}
	if rest > 1e-9 {
		p.WaitShares[measure.CPUEvent] = rest
		p.TypeShares[measure.CPUEvent] = rest
	}
	return p
}

func eventType(ev string) string {
	switch ev {
	case evApplyMain:
		return "Activity"
	case evWriteData, evWaitForWAL:
		return "Client"
	case "relation", "transactionid", "tuple", "applytransaction":
		return waitTypeLock
	case "DataFileRead", "WALWrite", evWALRead, evReorderRead:
		return waitTypeIO
	}
	return "IPC"
}

// path builds an input for a path with a 200 MB backlog draining at 10 MB/s
// over 10 s, both sides observed with /proc.
func path(ws, ap measure.Proc) Input {
	return Input{Slot: "s", Subscription: "s", HasSubscriber: true, SlotFound: true, SlotActive: true,
		SubEnabled: true, ApplyWorker: true, Proc: map[topology.Role]bool{topology.Publisher: true, topology.Subscriber: true}, FlushLagS: -1,
		MedianLag: 200e6,
		Summary: measure.Summary{WindowS: 10, Ticks: 11, Consumed: 10e6, Decoded: 10e6,
			Walsender: ws, Apply: ap, PubHostBusy: 0.5, SubHostBusy: 0.5,
			Lag: measure.Lag{Total: 200e6, NotYetSent: 195e6, Start: 300e6}}}
}

func TestStageModelThresholds(t *testing.T) {
	idleWS := proc(0.3, 0.02, map[string]float64{evWriteData: 0.65})
	waitingApply := proc(0.2, 0.02, map[string]float64{evApplyMain: 0.75})
	cases := []struct {
		name      string
		in        Input
		want      VerdictName
		wantLimit StageName
		wantNext  StageName
	}{
		{"an apply worker at 0.86 of a core, barely waiting for data, is the limit",
			path(idleWS, proc(0.80, 0.06, map[string]float64{evApplyMain: 0.10})), SubscriberApplyCPU, StageApply, StageWalsender},
		{"an apply worker at 0.84 of a core that waits for data 16% of the time is not; the blocked walsender puts the limit on the link",
			path(idleWS, proc(0.78, 0.06, map[string]float64{evApplyMain: 0.16})), Network, StageLink, StageApply},
		{"an apply worker at 0.90 of a core whose probes show it waiting for data 16% is the limit: /proc leaves only 10% for waiting, the rest are stale events of a runnable worker",
			path(idleWS, proc(0.80, 0.10, map[string]float64{evApplyMain: 0.16})), SubscriberApplyCPU, StageApply, StageWalsender},
		{"a walsender blocked 31% with the apply worker waiting for data is the link",
			path(proc(0.5, 0.05, map[string]float64{evWriteData: 0.31}), waitingApply), Network, StageLink, StageWalsender},
		{"a walsender blocked 29% is not enough to name the link",
			path(proc(0.5, 0.05, map[string]float64{evWriteData: 0.29, evWaitForWAL: 0.1}), waitingApply), Inconclusive, "", ""},
		{"a starved walsender whose CPU and run queue add up to 83% (blocked 17%) is still the limit while the apply worker waits",
			path(proc(0.06, 0.78, map[string]float64{evWriteData: 0.25}), waitingApply), WalsenderStarved, StageWalsender, StageApply},
		{"a walsender busy 59% and blocked 20% names no stage",
			path(proc(0.55, 0.04, map[string]float64{evWriteData: 0.2, evWaitForWAL: 0.1}), waitingApply), Inconclusive, "", ""},
		{"an apply worker busy 70% that never waits for data, with the walsender blocked on it, is the limit",
			path(idleWS, proc(0.62, 0.08, map[string]float64{"LogicalParallelApplyMain": 0.3})), SubscriberApplyCPU, StageApply, StageWalsender},
		{"a walsender at 0.86 (CPU) while the apply worker waits is decoding-bound",
			path(proc(0.82, 0.04, nil), waitingApply), WalsenderDecodeCPU, StageWalsender, StageApply},
		{"a walsender on the run queue half as long as it runs is starved",
			path(proc(0.6, 0.3, map[string]float64{evWriteData: 0.5}), waitingApply), WalsenderStarved, StageWalsender, StageApply},
		{"a walsender on the run queue less than half as long as it runs is decoding-bound",
			path(proc(0.62, 0.26, nil), waitingApply), WalsenderDecodeCPU, StageWalsender, StageApply},
		{"a walsender whose stale WalSenderWriteData hides a full run queue is starved, not the link",
			path(proc(0.07, 0.90, map[string]float64{evWriteData: 0.9}), waitingApply), WalsenderStarved, StageWalsender, StageApply},
		{"a walsender on the run queue 47% and asleep on the socket 36% (busy loops on its CPU, kernel 6.18) is starved, not the link",
			path(proc(0.18, 0.47, map[string]float64{evWriteData: 0.91}), proc(0.56, 0.06, map[string]float64{evApplyMain: 0.38})), WalsenderStarved, StageWalsender, StageApply},
		{"a walsender on the run queue 16% and asleep on the socket 36% (the lab's TCP link) is the link",
			path(proc(0.45, 0.16, map[string]float64{evWriteData: 0.45}), proc(0.31, 0.22, map[string]float64{evApplyMain: 0.45})), Network, StageLink, StageWalsender},
		{"a walsender on the run queue 30% and asleep on the socket 40% waits longer for the consumer than for a CPU: the link",
			path(proc(0.1, 0.3, map[string]float64{evWriteData: 0.9}), waitingApply), Network, StageLink, StageWalsender},
		{"a walsender mostly reading WAL from disk is read-bound",
			path(proc(0.3, 0.02, map[string]float64{evWALRead: 0.6}), waitingApply), WalsenderReadIO, StageWalsender, StageApply},
		{"an apply worker waiting on a lock is waiting on its own resources",
			path(idleWS, proc(0.0, 0.0, map[string]float64{"relation": 1.0})), SubscriberWaits, StageApply, StageWalsender},
		{"an apply worker half on CPU and half reading data files is busy on a mix: its waits decide",
			path(idleWS, proc(0.45, 0.02, map[string]float64{"DataFileRead": 0.5})), SubscriberWaits, StageApply, StageWalsender},
		{"an apply worker mostly on CPU with some data file reads is CPU-bound",
			path(idleWS, proc(0.6, 0.02, map[string]float64{"DataFileRead": 0.3})), SubscriberApplyCPU, StageApply, StageWalsender},
		{"an apply worker on the run queue as long as it runs is starved",
			path(idleWS, proc(0.5, 0.45, nil)), SubscriberStarved, StageApply, StageWalsender},
		{"both processes on the run queue a quarter of the time is mixed",
			path(proc(0.5, 0.45, nil), proc(0.5, 0.3, map[string]float64{evApplyMain: 0.2})), Inconclusive, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Classify(c.in)
			if v.Name != c.want || v.Limit != c.wantLimit {
				t.Fatalf("verdict %s limit %q, want %s limit %q; evidence %q", v.Name, v.Limit, c.want, c.wantLimit, EvidenceTexts(v.Evidence))
			}
			var next StageName
			if v.Next != nil {
				next = v.Next.Stage
			}
			if next != c.wantNext {
				t.Errorf("next limit %q, want %q", next, c.wantNext)
			}
		})
	}
}

func TestConfidenceFollowsTheMargins(t *testing.T) {
	waiting := proc(0.2, 0.02, map[string]float64{evApplyMain: 0.75})
	near := Classify(path(proc(0.3, 0.02, map[string]float64{evWriteData: 0.33}), waiting))
	clear := Classify(path(proc(0.2, 0.02, map[string]float64{evWriteData: 0.78}), waiting))
	if near.Name != Network || clear.Name != Network {
		t.Fatalf("verdicts %s and %s, want network twice", near.Name, clear.Name)
	}
	if near.Confidence >= clear.Confidence {
		t.Errorf("blocked 33%%: confidence %.2f, blocked 78%%: %.2f; want the clearer case more confident", near.Confidence, clear.Confidence)
	}
	if clear.Confidence < 0.9 {
		t.Errorf("a clear network case has confidence %.2f, want >= 0.9", clear.Confidence)
	}
	// The near case is decided by the blocked share, 3 points over
	// LinkBlocked: the margins test would flag it (under nearMargin + 0.005).
	if d := near.Decided; d == nil || d.Condition != "walsender blocked over LinkBlocked" || d.Margin > nearMargin+0.005 {
		t.Errorf("blocked 33%%: decided by %+v, want the walsender's blocked share about 0.03 over LinkBlocked", d)
	}
}

func TestCaughtUpNeedsSmallBytesSmallTimeAndNothingSaturated(t *testing.T) {
	light := func(lag int64, rate float64, ap measure.Proc) Input {
		in := path(proc(0.05, 0.01, map[string]float64{evWaitForWAL: 0.9}), ap)
		in.MedianLag, in.Summary.Lag = lag, measure.Lag{Total: lag, Start: lag}
		in.Summary.Consumed, in.Summary.Decoded, in.Summary.Generated = rate, rate, rate
		return in
	}
	idle := proc(0.05, 0.01, map[string]float64{evApplyMain: 0.9})
	cases := []struct {
		name string
		in   Input
		want VerdictName
	}{
		{"300 kB behind at 1 MB/s with idle processes is caught up", light(300e3, 1e6, idle), CaughtUp},
		{"15 MiB behind at 1 MB/s is 16 s of lag in time: not caught up", light(15<<20, 1e6, idle), Inconclusive},
		{"300 kB that drains at 10 kB/s is 30 s of lag in time: not caught up", light(300e3, 10e3, idle), Inconclusive},
		{"300 kB behind a saturated apply worker names the apply worker", light(300e3, 10e3, proc(0.97, 0.02, nil)), SubscriberApplyCPU},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if v := Classify(c.in); v.Name != c.want {
				t.Errorf("verdict %s (lag time %.1f s), want %s; evidence %q", v.Name, v.LagTime.Seconds.Or(-1), c.want, EvidenceTexts(v.Evidence))
			}
		})
	}
	in := light(300e3, 1e6, idle)
	in.FlushLagS = 25
	if v := Classify(in); v.Name == CaughtUp || v.LagTime.Seconds != Known(25.0) {
		t.Errorf("a 25 s flush_lag: verdict %s, lag time %v s; want not caught up at 25 s", v.Name, v.LagTime.Seconds)
	}
}

func TestALockedApplyWorkerIsNotStalledAndNamesTheBlocker(t *testing.T) {
	in := path(proc(0.01, 0, map[string]float64{evWriteData: 0.95}), proc(0, 0, map[string]float64{"relation": 1.0}))
	in.Summary.Consumed, in.Summary.Decoded, in.Summary.Generated = 0, 0, 1e6
	in.Blockers = []Blocker{{measure.Blocker{Session: sample.Session{PID: 4242, AppName: "nightly-report", User: "app", State: "idle in transaction"}, XactAgeS: 31, Query: "LOCK TABLE hot IN SHARE MODE", WaitEvent: "relation", Ticks: 10}}}
	v := Classify(in)
	if v.Name != SubscriberWaits || v.Limit != StageApply {
		t.Fatalf("verdict %s limit %s, want subscriber-waits on the apply stage; evidence %q", v.Name, v.Limit, EvidenceTexts(v.Evidence))
	}
	all := strings.Join(EvidenceTexts(v.Evidence), "\n") + strings.Join(Texts(v.Helps), "\n")
	for _, want := range []string{"pid 4242", "nightly-report", "idle in transaction", "end or shorten the blocking session (pid 4242)", "blocked, not stopped"} {
		if !strings.Contains(all, want) {
			t.Errorf("evidence and advice lack %q:\n%s", want, all)
		}
	}
	if strings.Contains(strings.Join(Texts(v.Helps), " "), "disk") {
		t.Errorf("a lock wait is advised a faster disk: %q", v.Helps)
	}
}

func TestSynchronousWaitsAreNamed(t *testing.T) {
	idleWS := proc(0.05, 0.01, map[string]float64{evWriteData: 0.9})
	v := Classify(path(idleWS, proc(0.1, 0.01, map[string]float64{evSyncRep: 0.85})))
	if v.Name != SubscriberWaits || !strings.Contains(strings.Join(EvidenceTexts(v.Evidence), " "), "synchronous standby") || !strings.Contains(v.Helps[0].Text, "synchronous_commit = off") {
		t.Errorf("an apply worker in SyncRep: %s, evidence %q, helps %q", v.Name, EvidenceTexts(v.Evidence), v.Helps)
	}
	w := Classify(path(proc(0.02, 0.01, map[string]float64{evStandbyConfirm: 0.95}), proc(0.02, 0, map[string]float64{evApplyMain: 0.97})))
	if w.Name != WalsenderWaitsStandby || w.Limit != StageWalsender || !strings.Contains(w.Headline, "synchronized_standby_slots") {
		t.Errorf("a walsender in WaitForStandbyConfirmation: %s limit %q headline %q", w.Name, w.Limit, w.Headline)
	}
}

func TestNothingWorkingIsStalled(t *testing.T) {
	in := path(proc(0.01, 0, map[string]float64{evWaitForWAL: 0.95}), proc(0.01, 0, map[string]float64{evApplyMain: 0.95}))
	in.Summary.Consumed, in.Summary.Decoded, in.Summary.Generated = 0, 0, 5e6
	if v := Classify(in); v.Name != Stalled {
		t.Errorf("verdict %s, want stalled when no position moves and no stage works", v.Name)
	}
}

func TestABusyParallelApplyWorkerIsTheLimitNotItsWaitingLeader(t *testing.T) {
	// streaming = parallel (16+): the leader waits to hand data to its
	// parallel worker (LogicalApplySendData) or on the applytransaction
	// lock while the worker applies a large transaction on a full core.
	in := path(proc(0.3, 0.02, map[string]float64{evWriteData: 0.65}),
		proc(0.1, 0.01, map[string]float64{evApplySendData: 0.5, "applytransaction": 0.4}))
	busy := proc(0.93, 0.04, nil)
	busy.PID = 777
	in.Summary.Parallel = []measure.Proc{busy, proc(0.05, 0, map[string]float64{"LogicalParallelApplyMain": 0.95})}
	v := Classify(in)
	if v.Name != SubscriberApplyCPU || v.Limit != StageParallel {
		t.Fatalf("verdict %s limit %q, want subscriber-apply-cpu on the parallel apply stage; evidence %q", v.Name, v.Limit, EvidenceTexts(v.Evidence))
	}
	if !strings.Contains(strings.Join(EvidenceTexts(v.Evidence), " "), "pid 777, the busiest of 2") || !strings.Contains(strings.Join(EvidenceTexts(v.Evidence), " "), "streaming = parallel") {
		t.Errorf("evidence %q does not name the busiest parallel worker and parallel streaming", EvidenceTexts(v.Evidence))
	}
	var leader Stage
	for _, s := range v.Stages {
		if s.Name == StageApply {
			leader = s
		}
	}
	if leader.Own > 0.01 || leader.Blocked < 0.85 {
		t.Errorf("the leader's waits on its parallel worker count as own %.2f, blocked %.2f; want them blocked on the next stage", leader.Own, leader.Blocked)
	}
	// Without parallel workers the same leader waits are not a saturated
	// apply stage: nothing applies on a full core.
	in.Summary.Parallel = nil
	if v := Classify(in); v.Limit == StageApply {
		t.Errorf("a leader that only waits on parallel workers was named the limit (%s)", v.Name)
	}
}

func TestABacklogThatDoesNotDrainIsNeverCaughtUp(t *testing.T) {
	// 11 MB that neither the walsender nor the slot moved in a 9 s window
	// while WAL was written, the walsender blocked on the socket: under
	// CaughtUpLag in bytes, yet "at least 9 s" old and not draining.
	in := path(proc(0.02, 0.01, map[string]float64{evWriteData: 0.95}), proc(0.02, 0, map[string]float64{evApplyMain: 0.3, "DataFileRead": 0.1}))
	in.MedianLag, in.Summary.WindowS = 11e6, 9
	in.Summary.Lag = measure.Lag{Total: 11e6, Start: 10e6}
	in.Summary.Consumed, in.Summary.Decoded, in.Summary.Generated = 0, 0, 100e3
	in.FlushLagS = 0.00001
	if v := Classify(in); v.Name == CaughtUp {
		t.Errorf("caught-up for a backlog that did not drain (lag time %v s)", v.LagTime.Seconds)
	}
}

func TestALinkDrainingItsLastMegabytesIsStillTheLink(t *testing.T) {
	// PostgreSQL 16, 8 MB/s link (make test, 2026-12-01): 102 MB at the
	// window's start, 15 MB at its end, the walsender blocked on the socket
	// 73% and never waiting for WAL, the apply worker 56% busy.
	in := path(proc(0.22, 0.04, map[string]float64{evWriteData: 0.87}), proc(0.48, 0.08, map[string]float64{evApplyMain: 0.48}))
	in.MedianLag = 55e6
	in.Summary.Lag = measure.Lag{Total: 14.6e6, NotYetSent: 14.2e6, Start: 102.5e6}
	if v := Classify(in); v.Name != Network || v.Next == nil || v.Next.Stage != StageApply {
		t.Errorf("verdict %s (%q), want network with the apply worker next", v.Name, v.Cause)
	}
	// The same end of window with the walsender waiting for WAL 38% of
	// the time is a backlog that ran out: mixed-apply-drained's case.
	in.Summary.Walsender = proc(0.35, 0.03, map[string]float64{evWriteData: 0.27, evWaitForWAL: 0.38})
	if v := Classify(in); v.Name != Inconclusive || !strings.Contains(v.Cause, "drained during the window") {
		t.Errorf("verdict %s (%q), want inconclusive: drained during the window", v.Name, v.Cause)
	}
}

// A worker reading from a fast disk shows its reads both as CPU (the
// kernel's time) and as DataFileRead: whichever verdict the split gives,
// the evidence names both parts; a worker that mostly waits on a slow disk
// gets no CPU line.
func TestACPUAndIOMixNamesBothParts(t *testing.T) {
	idleWS := proc(0.05, 0.01, map[string]float64{evWriteData: 0.9})
	cases := []struct {
		name    string
		apply   measure.Proc
		want    VerdictName
		cpuLine bool
		ioLine  bool
	}{
		{"mostly CPU", proc(0.62, 0.02, map[string]float64{"DataFileRead": 0.35}), SubscriberApplyCPU, false, true},
		{"mostly reads", proc(0.45, 0.02, map[string]float64{"DataFileRead": 0.85}), SubscriberWaits, true, false},
		{"slow disk", proc(0.08, 0.01, map[string]float64{"DataFileRead": 0.95}), SubscriberWaits, false, false},
	}
	for _, c := range cases {
		v := Classify(path(idleWS, c.apply))
		ev := strings.Join(EvidenceTexts(v.Evidence), "\n")
		if v.Name != c.want || v.Limit != StageApply {
			t.Errorf("%s: %s limit %q, want %s on the apply stage; evidence %q", c.name, v.Name, v.Limit, c.want, ev)
		}
		if got := strings.Contains(ev, "also ran on a CPU"); got != c.cpuLine {
			t.Errorf("%s: CPU part named %v, want %v: %q", c.name, got, c.cpuLine, ev)
		}
		if got := strings.Contains(ev, "also waited on I/O"); got != c.ioLine {
			t.Errorf("%s: I/O part named %v, want %v: %q", c.name, got, c.ioLine, ev)
		}
	}
}

// A path interrupted by a restart looks stopped: with a sampling gap a
// stall is named at 0.5 at most (the fault matrix's publisher restart).
func TestAStallAcrossASamplingGapIsUnsure(t *testing.T) {
	in := path(proc(0.01, 0, map[string]float64{evWaitForWAL: 0.95}), proc(0.01, 0, map[string]float64{evApplyMain: 0.95}))
	in.Summary.Consumed, in.Summary.Decoded, in.Summary.Generated = 0, 0, 5e6
	sure := Classify(in)
	in.Gaps = 1
	v := Classify(in)
	if v.Name != Stalled || sure.Confidence <= 0.5 || v.Confidence > 0.5 || !strings.Contains(strings.Join(v.Caveats, " "), "restart") {
		t.Errorf("without a gap %s %.2f, with one %s %.2f %q: want stalled, sure without, at most 0.5 with", sure.Name, sure.Confidence, v.Name, v.Confidence, v.Caveats)
	}
}

func TestABacklogConfirmedAtAnIdleServersTrickleDidNotDrain(t *testing.T) {
	// A stopped apply worker's slot confirmed the idle publisher's own
	// records at 6 B/s over 56 MB of backlog (missing-column on 16.14):
	// that is no drain rate, and the lag in time is at least the window,
	// not 56e6/6 s.
	in := path(proc(0.01, 0, map[string]float64{evWaitForWAL: 0.95}), proc(0.01, 0, nil))
	in.MedianLag, in.Summary.WindowS = 56e6, 9
	in.Summary.Lag = measure.Lag{Total: 56e6, Start: 56e6}
	in.Summary.Consumed, in.Summary.Decoded, in.Summary.Generated = 6, 6, 6
	v := Classify(in)
	if v.LagTime.DrainS.Known() || v.LagTime.Seconds != Known(9.0) || !strings.Contains(v.LagTime.Text, "at least 9") || !strings.Contains(v.LagTime.Text, "did not drain") {
		t.Errorf("lag time %+v: want at least the 9 s window of a backlog that did not drain", v.LagTime)
	}
	in.Summary.Consumed = 2 * StillRate // a real, slow drain keeps its figure
	if v := Classify(in); v.LagTime.DrainS != Known(56e6/(2*StillRate)) {
		t.Errorf("drain %v s at 2 kB/s, want %.0f s", v.LagTime.DrainS, 56e6/(2*StillRate))
	}
}
