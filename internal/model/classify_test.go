package model

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/testkit/recordings"
)

func load(t *testing.T, path string) *sample.Recording {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rec sample.Recording
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &rec
}

// TestRecordedLabRuns classifies every recording in ../classify/testdata/ (samples from
// real lab runs, see internal/lab's integration tests with
// LAGSCOPE_RECORD_DIR) and checks the verdict its scenario must produce.
func TestRecordedLabRuns(t *testing.T) {
	exps, err := recordings.Load("../classify/testdata")
	if err != nil {
		t.Fatal(err)
	}
	if len(exps) == 0 {
		t.Fatal("no recordings in ../classify/testdata/")
	}
	for _, e := range exps {
		t.Run(filepath.Base(e.File), func(t *testing.T) {
			in, i := judged(t, e)
			v := Classify(in)
			if string(v.Name) != e.Verdict {
				t.Errorf("verdict %s (%.2f) with evidence %q; the lab made %s (%s): want %s", v.Name, v.Confidence, EvidenceTexts(v.Evidence), e.State, e.How, e.Verdict)
			}
			if v.Confidence <= 0 || v.Confidence > 1 || len(v.Evidence) == 0 || v.Headline == "" {
				t.Errorf("verdict lacks confidence, evidence or headline: %+v", v)
			}
			checkWithoutProc(t, e, load(t, e.File), i)
		})
	}
}

// judged is the input of the path a recording's expectation judges, and
// its index among the recording's paths.
func judged(t *testing.T, e recordings.Expectation) (Input, int) {
	t.Helper()
	ins := Inputs(load(t, e.File), nil)
	var slots []string
	for _, in := range ins {
		slots = append(slots, in.Slot)
	}
	i := e.Path(slots)
	if i < 0 {
		t.Fatalf("%s: paths %q: none is the one to judge", e.File, slots)
	}
	return ins[i], i
}

// noProcExact are the states whose verdict must hold without /proc: the
// publisher's CPU burst tells a starved walsender from the link.
var noProcExact = map[string]bool{"walsender-starved": true, "network": true, "network-8mbps": true}

// checkWithoutProc classifies a recording that has CPU bursts (samples
// version 4+) again without its /proc figures, as 'diagnose --no-proc'
// would have seen it: the states in noProcExact keep their verdict; every
// other state keeps it, is inconclusive, or gets another verdict at a
// confidence of at most 0.6.
func checkWithoutProc(t *testing.T, e recordings.Expectation, rec *sample.Recording, path int) {
	t.Helper()
	bursts := false
	for _, tk := range rec.Ticks {
		bursts = bursts || len(tk.Read(sample.PublisherNode).Burst) > 0
	}
	if !bursts {
		return
	}
	v := Classify(Inputs(rec.WithoutProc(), nil)[path])
	switch {
	case string(v.Name) == e.Verdict:
	case noProcExact[e.State]:
		t.Errorf("without /proc: verdict %s (%.2f) with evidence %q; the lab made %s: want %s", v.Name, v.Confidence, EvidenceTexts(v.Evidence), e.State, e.Verdict)
	case v.Name != Inconclusive && v.Confidence > 0.6:
		t.Errorf("without /proc: verdict %s at %.2f (evidence %q); the lab made %s (%s): a wrong verdict must stay at 0.6 or under", v.Name, v.Confidence, EvidenceTexts(v.Evidence), e.State, e.Verdict)
	}
}

// modify returns a copy of rec with f applied to every tick (a recorded run
// turned into a nearby state that the lab cannot make quickly).
func modify(rec *sample.Recording, f func(i int, t *sample.Tick)) *sample.Recording {
	c := rec.Clone()
	for i := range c.Ticks {
		t := &c.Ticks[i]
		pub, sub := t.Read(sample.PublisherNode), t.Read(sample.SubscriberNode)
		t.Edit(sample.PublisherNode).Slots = append([]sample.Slot(nil), pub.Slots...)
		t.Edit(sample.SubscriberNode).Subs = append([]sample.Sub(nil), sub.Subs...)
		if len(pub.Slots) > 0 && len(sub.Subs) > 0 {
			f(i, t)
		}
	}
	return c
}

func TestStallCauses(t *testing.T) {
	busy := load(t, "../classify/testdata/apply-bound-pg15-lab.json")
	cases := []struct {
		name      string
		rec       *sample.Recording
		wantCause string
	}{
		{"a disabled subscription is stalled whatever the processes do",
			modify(busy, func(_ int, t *sample.Tick) { t.Read(sample.SubscriberNode).Subs[0].Enabled = false }), "is disabled"},
		{"a rising apply_error_count is stalled with the error count",
			modify(busy, func(i int, t *sample.Tick) { t.Read(sample.SubscriberNode).Subs[0].ApplyErrors = int64(i / 3) }), "apply_error_count"},
		{"a lost slot is stalled and says to recreate it",
			modify(busy, func(_ int, t *sample.Tick) { t.Read(sample.PublisherNode).Slots[0].WALStatus = "lost" }), "recreate"},
		{"a slot lost to removed WAL (17+) says so and names max_slot_wal_keep_size",
			modify(busy, func(_ int, t *sample.Tick) {
				t.Read(sample.PublisherNode).Slots[0].WALStatus, t.Read(sample.PublisherNode).Slots[0].Invalidation = "lost", "wal_removed"
			}), "max_slot_wal_keep_size"},
		{"a slot invalidated by removed catalog rows says rows_removed, not removed WAL",
			modify(busy, func(_ int, t *sample.Tick) { t.Read(sample.PublisherNode).Slots[0].Invalidation = "rows_removed" }), "catalog rows it needed were removed"},
		{"a slot invalidated by a lowered wal_level says to set it back",
			modify(busy, func(_ int, t *sample.Tick) {
				t.Read(sample.PublisherNode).Slots[0].Invalidation = "wal_level_insufficient"
			}), "set it back to logical"},
		{"an 18 slot invalidated for idleness names idle_replication_slot_timeout",
			modify(busy, func(_ int, t *sample.Tick) { t.Read(sample.PublisherNode).Slots[0].Invalidation = "idle_timeout" }), "idle_replication_slot_timeout"},
		{"a 16 slot marked conflicting is stalled without a guessed reason",
			modify(busy, func(_ int, t *sample.Tick) { t.Read(sample.PublisherNode).Slots[0].Invalidation = "invalidated" }), "does not say why"},
		{"an enabled subscription without an apply worker is stalled",
			modify(busy, func(_ int, t *sample.Tick) { t.Read(sample.SubscriberNode).Subs[0].WorkerPID = 0 }), "no apply worker"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Classify(Inputs(c.rec, nil)[0])
			if v.Name != Stalled || !strings.Contains(v.Cause, c.wantCause) {
				t.Errorf("verdict %s cause %q, want stalled with %q", v.Name, v.Cause, c.wantCause)
			}
		})
	}
}

// TestWithoutProcTheVerdictSaysSoAndIsLessCertain takes a recording made
// before CPU bursts existed (samples version 3): without /proc and without
// bursts nothing tells a starved walsender from the link.
func TestWithoutProcTheVerdictSaysSoAndIsLessCertain(t *testing.T) {
	rec := load(t, "../classify/testdata/walsender-starved-pg15-lab.json")
	with := Classify(Inputs(rec, nil)[0])
	blind := rec.Clone()
	blind.Server(sample.PublisherNode).ProcUnavailable = "server is not on this host"
	blind.Server(sample.SubscriberNode).ProcUnavailable = "server is not on this host"
	without := Classify(Inputs(blind, nil)[0])
	if without.Confidence >= with.Confidence {
		t.Errorf("confidence without /proc %.2f, with %.2f: want lower", without.Confidence, with.Confidence)
	}
	if len(without.Caveats) == 0 {
		t.Errorf("no caveat about missing /proc figures: %+v", without)
	}
	if without.Name == WalsenderStarved {
		t.Errorf("named walsender-starved without run-queue figures; starvation cannot be seen from wait events")
	}
}

func TestFewProbesAreInconclusive(t *testing.T) {
	rec := load(t, "../classify/testdata/apply-bound-pg15-lab.json")
	c := *rec
	c.Probes = rec.Probes[:4]
	if v := Classify(Inputs(&c, nil)[0]); v.Name != Inconclusive {
		t.Errorf("verdict %s from 4 probes, want inconclusive", v.Name)
	}
}

func TestPublisherOnlyStillNamesPublisherSideLimits(t *testing.T) {
	rec := load(t, "../classify/testdata/walsender-starved-pg15-lab.json")
	pubOnly := *rec
	pubOnly.Nodes = rec.Nodes[:1]
	pubOnly.Ticks = nil
	for _, tk := range rec.Ticks {
		tk = tk.Clone()
		sub := tk.Edit(sample.SubscriberNode)
		sub.Subs, sub.OK, sub.Host = nil, false, nil
		var procs []sample.ProcStat
		for _, p := range tk.Procs {
			if p.Side == sample.Publisher {
				procs = append(procs, p)
			}
		}
		tk.Procs = procs
		pubOnly.Ticks = append(pubOnly.Ticks, tk)
	}
	var probes []sample.Probe
	for _, p := range rec.Probes {
		if p.Side == sample.Publisher {
			probes = append(probes, p)
		}
	}
	pubOnly.Probes = probes
	ins := Inputs(&pubOnly, nil)
	if len(ins) != 1 || ins[0].HasSubscriber {
		t.Fatalf("inputs %+v, want one publisher-only path", ins)
	}
	v := Classify(ins[0])
	if v.Name != WalsenderStarved {
		t.Errorf("publisher-only verdict %s, want walsender-starved", v.Name)
	}
	found := false
	for _, e := range v.Evidence {
		found = found || e.Key == EvNoSubscriber && strings.Contains(e.Text, "no subscriber observed")
	}
	if !found {
		t.Errorf("evidence %q does not say the subscriber was not observed", EvidenceTexts(v.Evidence))
	}
}

func TestATablesyncSlotCopyingIsInitialSyncNotStalled(t *testing.T) {
	rec := load(t, "../classify/testdata/caught-up-pg16-diag.json")
	const slot = "pg_16399_sync_16390_7300000000000000001"
	c := modify(rec, func(i int, tk *sample.Tick) {
		tk.Edit(sample.PublisherNode).Slots = append(tk.Read(sample.PublisherNode).Slots, sample.Slot{Name: slot, Database: "lab", Active: false, ConfirmedFlush: tk.Read(sample.PublisherNode).Slots[0].ConfirmedFlush - 50<<20})
		tk.Read(sample.SubscriberNode).Subs[0].OID = 16399
		tk.Read(sample.SubscriberNode).Subs[0].NotReady = 1
		tk.Read(sample.SubscriberNode).Subs[0].SyncWorkers = []int{4711}
		tk.Edit(sample.SubscriberNode).Copies = []sample.CopyProgress{{PID: 4711, RelID: 16390, Table: "big", Bytes: int64(i) * 2e6, BytesTotal: 100e6}}
	})
	ins := Inputs(c, []string{slot})
	if len(ins) != 1 {
		t.Fatalf("%d inputs", len(ins))
	}
	v := Classify(ins[0])
	if v.Name != InitialSync || ins[0].Subscription != "lab_sub" {
		t.Fatalf("verdict %s for subscription %q, want initial-sync of lab_sub; evidence %q cause %q", v.Name, ins[0].Subscription, EvidenceTexts(v.Evidence), v.Cause)
	}
	if e := v.Evidence[0]; e.Key != EvCopyProgress || !strings.Contains(e.Text, "big: copied") || !strings.Contains(e.Text, "MB/s") || e.Figures["bytes_per_s"] <= 0 {
		t.Errorf("evidence %+v does not give the copy's progress and rate", e)
	}
	main := Classify(Inputs(c, []string{"lab_sub"})[0])
	if main.Name != CaughtUp || !strings.Contains(strings.Join(EvidenceTexts(main.Evidence), " "), "initial synchronisation") {
		t.Errorf("the subscription's own path: %s, evidence %q; want caught-up saying a table is still synchronising", main.Name, EvidenceTexts(main.Evidence))
	}
	leftover := modify(c, func(_ int, tk *sample.Tick) {
		sub := tk.Edit(sample.SubscriberNode)
		sub.Subs[0].NotReady, sub.Subs[0].SyncWorkers, sub.Copies = 0, nil, nil
	})
	if v := Classify(Inputs(leftover, []string{slot})[0]); v.Name != Stalled || !strings.Contains(v.Cause, "leftover") || len(v.Helps) == 0 ||
		len(v.Helps[0].Run) != 1 || v.Helps[0].Run[0].Text != "SELECT pg_drop_replication_slot('"+slot+"');" {
		t.Errorf("a tablesync slot without a copy under way: %s (%q, %+v), want stalled naming the slot to drop", v.Name, v.Cause, v.Helps)
	}
	failed := modify(c, func(i int, tk *sample.Tick) { tk.Read(sample.SubscriberNode).Subs[0].SyncErrors = int64(i / 4) })
	if v := Classify(Inputs(failed, []string{slot})[0]); v.Name != Stalled || !strings.Contains(v.Cause, "failed") {
		t.Errorf("a rising sync_error_count: %s (%q), want stalled saying the copy failed", v.Name, v.Cause)
	}
}

func TestTheSubscriptionsOwnWorkersAreNotBlockersToEnd(t *testing.T) {
	rec := load(t, "../classify/testdata/subscriber-lock-pg16-diag.json")
	leader := 0
	for _, tk := range rec.Ticks {
		if len(tk.Read(sample.SubscriberNode).Subs) > 0 && tk.Read(sample.SubscriberNode).Subs[0].WorkerPID != 0 {
			leader = tk.Read(sample.SubscriberNode).Subs[0].WorkerPID
		}
	}
	// A parallel worker waiting on the applytransaction lock its leader
	// holds: pg_blocking_pids names the leader.
	c := modify(rec, func(_ int, tk *sample.Tick) {
		tk.Read(sample.SubscriberNode).Subs[0].ParallelWorkers = []int{9999}
		tk.Read(sample.SubscriberNode).Subs[0].OtherWorkers = []int{9999}
		tk.Edit(sample.SubscriberNode).Blockers = append(tk.Read(sample.SubscriberNode).Blockers, sample.Blocker{WaiterPID: 9999, WaitEvent: "applytransaction", Session: sample.Session{PID: leader, BackendType: "logical replication apply worker"}})
	})
	in := Inputs(c, nil)[0]
	for _, b := range in.Blockers {
		if b.PID == leader {
			t.Errorf("the subscription's own leader (pid %d) is listed as a blocker: %+v", leader, b)
		}
	}
	if len(in.Blockers) != 1 || in.Blockers[0].AppName != "lab-lock-holder" {
		t.Errorf("blockers %+v, want only the lab's lock holder", in.Blockers)
	}
}
