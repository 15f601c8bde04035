package exporter

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/monitor"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// steps feeds a collector of one pair "p" synthetic steps of two answered
// ticks each, in which every slot's consumer confirms 1 MB.
type steps struct {
	col *Collector
	at  time.Time
	pos map[string]lsn.LSN
}

func newSteps() *steps {
	return &steps{col: NewCollector([]monitor.Options{{Pair: "p", Diagnose: diagnose.Options{Publisher: "x", Subscriber: "y"}}}),
		at: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), pos: map[string]lsn.LSN{}}
}

// step lists slots at both ticks (and subs, slots a subscription names, on
// the subscriber), with rep as the window's report (nil: none).
func (s *steps) step(slots []string, subs []sample.Sub, rep *report.Report) {
	rec := &sample.Recording{Start: s.at}
	for range 2 {
		s.at = s.at.Add(time.Second)
		t := sample.Tick{At: s.at, Reads: []sample.Read{{Node: sample.PublisherNode, OK: true, CurrentLSN: 1 << 30}, {Node: sample.SubscriberNode, OK: true, Subs: subs}}}
		for _, n := range slots {
			s.pos[n] += 1 << 20
			t.Edit(sample.PublisherNode).Slots = append(t.Read(sample.PublisherNode).Slots, sample.Slot{Name: n, RestartLSN: s.pos[n], ConfirmedFlush: s.pos[n]})
		}
		rec.Ticks = append(rec.Ticks, t)
	}
	rec.End = s.at
	s.col.Update(monitor.Update{Pair: "p", At: s.at, Step: rec, Window: rec, Report: rep, Down: map[string]string{}})
}

// failed is a step the publisher did not answer.
func (s *steps) failed() {
	s.at = s.at.Add(2 * time.Second)
	s.col.Update(monitor.Update{Pair: "p", At: s.at, Err: errors.New("connection refused"), Down: map[string]string{sample.Publisher: "connection refused"}})
}

// confirmed is the slots' lagscope_wal_confirmed_bytes_total by slot label.
func (s *steps) confirmed(t *testing.T) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, m := range gatherSeries(t, s.col, "lagscope_wal_confirmed_bytes_total") {
		out[m.labels["slot"]] = m.value
	}
	return out
}

func TestASlotGoneForSeveralStepsIsPruned(t *testing.T) {
	s := newSteps()
	s.step([]string{"a", "b"}, nil, nil)
	s.step([]string{"a", "b"}, nil, nil)
	for gone := 1; gone < PruneAfterSteps; gone++ {
		s.step([]string{"a"}, nil, nil)
		if _, ok := s.confirmed(t)["b"]; !ok {
			t.Fatalf("slot b gone for %d answered step(s), fewer than %d: its counter was dropped", gone, PruneAfterSteps)
		}
	}
	// Steps the publisher did not answer say nothing of its slots.
	for range 5 {
		s.failed()
	}
	if _, ok := s.confirmed(t)["b"]; !ok {
		t.Fatal("failed steps pruned slot b: only answered steps count")
	}
	s.step([]string{"a"}, nil, nil)
	got := s.confirmed(t)
	if _, ok := got["b"]; ok {
		t.Errorf("slot b gone for %d answered steps is still exported: %v", PruneAfterSteps, got)
	}
	if got["a"] == 0 {
		t.Errorf("slot a, listed at every step, lost its counter: %v", got)
	}
}

func TestASlotThatASubscriptionStillNamesIsKept(t *testing.T) {
	s := newSteps()
	s.step([]string{"a"}, nil, nil)
	s.step([]string{"a"}, nil, nil)
	for range PruneAfterSteps + 1 {
		s.step(nil, []sample.Sub{{Name: "sub_a", Slot: "a"}}, nil)
	}
	if _, ok := s.confirmed(t)["a"]; !ok {
		t.Error("slot a, gone from the publisher but named by subscription sub_a, was pruned")
	}
}

func TestTablesyncSlotsAreExportedAsOneSeriesPerPair(t *testing.T) {
	s := newSteps()
	rep := func(slots ...string) *report.Report {
		r := &report.Report{WindowS: 4}
		for _, n := range slots {
			r.Paths = append(r.Paths, report.Path{Slot: n, Subscription: "lab_sub", Verdict: model.Verdict{Name: "initial-sync"}})
		}
		return r
	}
	// An initial sync of 50 tables, two copied at a time: 50 slots made and
	// dropped, each listed for two steps.
	for i := 0; i < 50; i += 2 {
		sync := []string{fmt.Sprintf("pg_16392_sync_%d_7714", 20000+i), fmt.Sprintf("pg_16392_sync_%d_7714", 20001+i)}
		for range 2 {
			s.step(append([]string{"lab_sub"}, sync...), nil, rep(append([]string{"lab_sub"}, sync...)...))
		}
	}
	got := s.confirmed(t)
	if len(got) != 2 {
		t.Fatalf("confirmed series %v: want lab_sub and one for every tablesync slot", got)
	}
	// Each slot is listed at four ticks in a row: three advances of 1 MB.
	if g, w := got[TablesyncSlots], float64(50*3<<20); g != w {
		t.Errorf("tablesync slots confirmed %g bytes, want %g (the sum over the 50 slots)", g, w)
	}
	n := gatherSeries(t, s.col, "lagscope_tablesync_slots")
	if len(n) != 1 || n[0].value != 2 || n[0].labels["subscription"] != "lab_sub" || n[0].labels["verdict"] != "initial-sync" {
		t.Errorf("lagscope_tablesync_slots = %v, want one series: 2 for lab_sub, initial-sync", n)
	}
	for _, name := range []string{"lagscope_verdict", "lagscope_slot_retained_bytes"} {
		slots := map[string]bool{}
		for _, m := range gatherSeries(t, s.col, name) {
			slots[m.labels["slot"]] = true
		}
		if len(slots) != 1 && !(len(slots) == 2 && slots[TablesyncSlots]) {
			t.Errorf("%s has slots %v: want lab_sub (and %s)", name, slots, TablesyncSlots)
		}
	}
	// Once the sync is over, its series go after PruneAfterSteps steps.
	for range PruneAfterSteps {
		s.step([]string{"lab_sub"}, nil, rep("lab_sub"))
	}
	if got := s.confirmed(t); len(got) != 1 {
		t.Errorf("after the sync: confirmed series %v, want lab_sub's only", got)
	}
	if n := gatherSeries(t, s.col, "lagscope_tablesync_slots"); len(n) != 0 {
		t.Errorf("after the sync: lagscope_tablesync_slots %v, want none", n)
	}
}

// sample1 is one series: its labels and value.
type sample1 struct {
	labels map[string]string
	value  float64
}

// gatherSeries returns every series of name that col exports.
func gatherSeries(t *testing.T, col *Collector, name string) []sample1 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(col)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	var out []sample1
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.Metric {
			l := map[string]string{}
			for _, lp := range m.Label {
				l[lp.GetName()] = lp.GetValue()
			}
			out = append(out, sample1{l, value(m)})
		}
	}
	return out
}

// A recorded initial sync (16: one table copied by one tablesync worker
// through the slot pg_16392_sync_16385_...) exports the tablesync slot
// once, counted by its subscription, and no series names it.
func TestARecordedInitialSyncExportsItsTablesyncSlotUnderOneLabel(t *testing.T) {
	col, _ := replay(t, "initial-sync-pg16-diag.json", 3*time.Second, 9*time.Second)
	n := gatherSeries(t, col, "lagscope_tablesync_slots")
	if len(n) != 1 || n[0].value != 1 || n[0].labels["subscription"] != "lab_sub" || n[0].labels["verdict"] != "initial-sync" {
		t.Errorf("lagscope_tablesync_slots = %v, want 1 for lab_sub, initial-sync", n)
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(col)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	synced := 0
	for _, mf := range mfs {
		for _, m := range mf.Metric {
			for _, l := range m.Label {
				if l.GetName() == "slot" && strings.HasPrefix(l.GetValue(), "pg_16392_sync_") {
					t.Errorf("%s names the tablesync slot %s", mf.GetName(), l.GetValue())
				}
				if l.GetName() == "slot" && l.GetValue() == TablesyncSlots {
					synced++
				}
			}
		}
	}
	if synced == 0 {
		t.Errorf("no series with slot=%q: the tablesync slot's retained WAL and counters are missing", TablesyncSlots)
	}
	problems, err := testutil.CollectAndLint(col)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
}
