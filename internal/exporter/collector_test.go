package exporter

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/monitor"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/testkit/recordings"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
)

// replay feeds a recorded real run to a collector as a monitor would: in
// steps of step, each classified with the steps of the last window.
func replay(t *testing.T, file string, step, window time.Duration) (*Collector, *sample.Recording) {
	t.Helper()
	rec, err := recordings.Read("../classify/testdata", strings.TrimSuffix(file, ".json"))
	if err != nil {
		t.Fatal(err)
	}
	col := NewCollector([]monitor.Options{{Pair: "lab", Diagnose: diagnose.Options{Publisher: "x", Subscriber: "y"}}})
	var steps []*sample.Recording
	for from := rec.Start; from.Before(rec.End); from = from.Add(step) {
		s := slice(rec, from, from.Add(step))
		steps = monitor.Trim(append(steps, s), window)
		w := sample.Merge(steps...)
		w.Setup, w.SetupError = rec.Setup, rec.SetupError // as the monitor's preflight read it
		rep := diagnose.Build(w, nil, 20)
		col.Update(monitor.Update{Pair: "lab", At: s.End, Step: s, Window: w, Report: &rep, Down: map[string]string{}})
	}
	return col, rec
}

// slice is the part of rec from from to to, as one step would have sampled it.
func slice(rec *sample.Recording, from, to time.Time) *sample.Recording {
	out := &sample.Recording{Nodes: rec.Nodes, Version: rec.Version, Start: from, End: to}
	if to.After(rec.End) {
		out.End = rec.End
	}
	in := func(at time.Time) bool { return !at.Before(from) && at.Before(to) }
	for _, tk := range rec.Ticks {
		if in(tk.At) {
			out.Ticks = append(out.Ticks, tk)
		}
	}
	for _, p := range rec.Probes {
		if in(p.At) {
			out.Probes = append(out.Probes, p)
		}
	}
	return out
}

// gather returns the value of every series of name whose labels include want.
func gather(t *testing.T, col *Collector, name string, want map[string]string) []float64 {
	t.Helper()
	var out []float64
	for _, s := range gatherSeries(t, col, name) {
		if hasLabels(s.labels, want) {
			out = append(out, s.value)
		}
	}
	return out
}

// hasLabels reports whether labels hold every label of want.
func hasLabels(labels, want map[string]string) bool {
	for k, v := range want {
		if labels[k] != v {
			return false
		}
	}
	return true
}

func matches(m *dto.Metric, want map[string]string) bool {
	n := 0
	for _, l := range m.Label {
		if v, ok := want[l.GetName()]; ok && v == l.GetValue() {
			n++
		}
	}
	return n == len(want)
}

func value(m *dto.Metric) float64 {
	switch {
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Counter != nil:
		return m.Counter.GetValue()
	}
	return 0
}

func one(t *testing.T, v []float64, what string) float64 {
	t.Helper()
	if len(v) != 1 {
		t.Fatalf("%s: %d series, want 1", what, len(v))
	}
	return v[0]
}

// The stage and role label values are derived from classify's stages and
// sample's roles; dashboards and alerts select on them and
// docs/prometheus/README.md lists them, so they stay put.
func TestTheStageAndRoleLabelValuesAreTheDocumentedOnes(t *testing.T) {
	if want := []string{"walsender", "link", "apply", "parallel_apply", "none"}; !slices.Equal(Stages, want) {
		t.Errorf("Stages = %q, want %q", Stages, want)
	}
	for role, want := range map[string]string{sample.RoleWalsender: "walsender", sample.RoleApply: "apply_leader",
		sample.RoleParallel: "parallel_apply", sample.RoleTablesync: "tablesync"} {
		if got := roleLabel(role); got != want {
			t.Errorf("roleLabel(%q) = %q, want %q", role, got, want)
		}
	}
}

func TestARecordedApplyBoundRunExportsTheApplyStageAsTheBottleneck(t *testing.T) {
	col, rec := replay(t, "apply-bound-pg16-diag.json", 3*time.Second, 9*time.Second)
	for _, st := range Stages {
		want := 0.0
		if st == "apply" {
			want = 1
		}
		if got := one(t, gather(t, col, "lagscope_bottleneck", map[string]string{"stage": st}), st); got != want {
			t.Errorf("lagscope_bottleneck{stage=%q} = %g, want %g", st, got, want)
		}
	}
	if got := one(t, gather(t, col, "lagscope_verdict", map[string]string{"verdict": "subscriber-apply-cpu"}), "verdict"); got != 1 {
		t.Errorf("lagscope_verdict{verdict=subscriber-apply-cpu} = %g, want 1", got)
	}
	if n := len(gather(t, col, "lagscope_verdict", nil)); n != len(model.Table) {
		t.Errorf("%d lagscope_verdict series, want every verdict of model.Table (%d)", n, len(model.Table))
	}
	// A verdict added to the table alone is exported.
	saved := model.Table
	t.Cleanup(func() { model.Table = saved })
	model.Table = append(append([]model.Spec{}, saved...), model.Spec{Name: "a-new-verdict", Finding: true})
	if got := gather(t, col, "lagscope_verdict", map[string]string{"verdict": "a-new-verdict"}); len(got) != 1 || got[0] != 0 {
		t.Errorf("lagscope_verdict{verdict=a-new-verdict} = %v, want one series at 0", got)
	}
	// Counters add up every step with no second counted twice: the WAL
	// generated over the recording, whatever the step.
	var first, last lsn.LSN
	for _, tk := range rec.Ticks {
		if tk.Read(sample.PublisherNode).OK {
			if first == 0 {
				first = tk.Read(sample.PublisherNode).CurrentLSN
			}
			last = tk.Read(sample.PublisherNode).CurrentLSN
		}
	}
	if got := one(t, gather(t, col, "lagscope_wal_generated_bytes_total", nil), "generated"); got != float64(last-first) {
		t.Errorf("generated %g bytes, want %d (the recording's span)", got, last-first)
	}
	cpu := one(t, gather(t, col, "lagscope_cpu_seconds_total", map[string]string{"role": "apply_leader"}), "apply cpu")
	if span := rec.End.Sub(rec.Start).Seconds(); cpu < 0.5*span || cpu > 1.05*span {
		t.Errorf("apply leader CPU %.1f s over a %.1f s recording, want most of one core (apply-bound)", cpu, span)
	}
	waits := gather(t, col, "lagscope_wait_event_probes_total", map[string]string{"role": "apply_leader", "wait_event": "CPU"})
	if one(t, waits, "apply CPU probes") < 50 {
		t.Errorf("apply leader seen on a CPU in %v probes, want most of ~200", waits)
	}
	for _, part := range []string{"not_sent", "sent_not_flushed", "flushed_not_confirmed"} {
		one(t, gather(t, col, "lagscope_lag_bytes", map[string]string{"part": part}), part)
	}
	if got := one(t, gather(t, col, "lagscope_up", map[string]string{"server": "subscriber"}), "up"); got != 1 {
		t.Errorf("lagscope_up{server=subscriber} = %g, want 1", got)
	}
}

func TestAFailedStepMarksTheServerDownAndKeepsTheCounters(t *testing.T) {
	col, _ := replay(t, "network-pg16-diag.json", 3*time.Second, 9*time.Second)
	before := one(t, gather(t, col, "lagscope_wal_confirmed_bytes_total", nil), "confirmed")
	col.Update(monitor.Update{Pair: "lab", At: time.Now(), Err: errors.New("connection refused"),
		Down: map[string]string{sample.Subscriber: "connection refused"}})
	if got := one(t, gather(t, col, "lagscope_up", map[string]string{"server": "subscriber"}), "up"); got != 0 {
		t.Errorf("lagscope_up{server=subscriber} = %g after a refused connection, want 0", got)
	}
	if got := one(t, gather(t, col, "lagscope_steps_total", map[string]string{"result": "error"}), "errors"); got != 1 {
		t.Errorf("lagscope_steps_total{result=error} = %g, want 1", got)
	}
	if after := one(t, gather(t, col, "lagscope_wal_confirmed_bytes_total", nil), "confirmed"); after != before {
		t.Errorf("confirmed bytes went from %g to %g on a failed step, want unchanged", before, after)
	}
}

// The exposition passes client_golang's lint (the checks 'promtool check
// metrics' runs): names, units, help, counter suffixes.
func TestTheExpositionPassesTheLinter(t *testing.T) {
	col, _ := replay(t, "apply-bound-pg16-diag.json", 3*time.Second, 9*time.Second)
	// and one with a setup, for the replication limits
	withSetup, _ := replay(t, "conflict-missing-pg18-diag.json", 3*time.Second, 9*time.Second)
	for _, c := range []*Collector{col, withSetup} {
		problems, err := testutil.CollectAndLint(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Errorf("%s: %s", p.Metric, p.Text)
		}
	}
	if n := testutil.CollectAndCount(col); n < 40 {
		t.Errorf("%d series, want the full set (40 or more)", n)
	}
}

// A step whose blocker reads failed counts them in lagscope_read_errors_total.
func TestFailedReadsAreCounted(t *testing.T) {
	rec, err := recordings.Read("../classify/testdata", "subscriber-lock-pg16-diag")
	if err != nil {
		t.Fatal(err)
	}
	rec.Ticks[1].ReadErrors = []sample.ReadError{{Side: sample.Subscriber, Source: sample.SourceBlockers, Err: "no answer within 3s"}}
	rec.Ticks[3].ReadErrors = []sample.ReadError{{Side: sample.Subscriber, Source: sample.SourceBlockers, Err: "no answer within 3s"}}
	s := NewPairState("p", true)
	s.count(rec)
	if got := s.ReadErrors[keyOf(sample.Subscriber, sample.SourceBlockers)]; got != 2 {
		t.Errorf("counted %g failed blocker reads, want 2", got)
	}
}

// A recorded 18.4 pair whose subscriber lacked rows the publisher updated
// exports the server's update_missing counter as it stood at the last tick.
func TestRecordedConflictsAreExportedAsTheServersCounters(t *testing.T) {
	col, rec := replay(t, "conflict-missing-pg18-diag.json", 2*time.Second, 6*time.Second)
	var last int64
	for _, tk := range rec.Ticks {
		if tk.Read(sample.SubscriberNode).OK && len(tk.Read(sample.SubscriberNode).Subs) > 0 {
			last = tk.Read(sample.SubscriberNode).Subs[0].Conflicts["update_missing"]
		}
	}
	got := one(t, gather(t, col, "lagscope_subscription_conflicts_total", map[string]string{"subscription": "lab_sub", "kind": "update_missing"}), "update_missing")
	if last == 0 || got != float64(last) {
		t.Errorf("update_missing %g, want the last tick's %d", got, last)
	}
}

// A recorded slot filling toward max_slot_wal_keep_size exports its
// forecast, its reserve and the free space of pg_wal's file system.
func TestARecordedFillingSlotExportsItsTimeToTrouble(t *testing.T) {
	col, _ := replay(t, "slot-filling-pg16-diag.json", 2*time.Second, 6*time.Second)
	slot := map[string]string{"slot": "lab_sub"}
	in := one(t, gather(t, col, "lagscope_slot_unreserved_in_seconds", slot), "unreserved in")
	safe := one(t, gather(t, col, "lagscope_slot_safe_wal_bytes", slot), "safe_wal_size")
	growth := one(t, gather(t, col, "lagscope_slot_retained_growth_bytes_per_second", slot), "growth")
	if growth < 1e6 || in <= 0 || math.Abs(in-safe/growth) > 0.01*in {
		t.Errorf("unreserved in %.1f s, safe %.0f bytes, growth %.0f B/s: want safe / growth", in, safe, growth)
	}
	if free := one(t, gather(t, col, "lagscope_wal_disk_free_bytes", map[string]string{}), "disk free"); free <= 0 {
		t.Errorf("pg_wal's file system free %g bytes", free)
	}
	if full := one(t, gather(t, col, "lagscope_slot_disk_full_in_seconds", slot), "disk full in"); full <= in {
		t.Errorf("disk full in %.0f s, before the slot's reserve runs out in %.0f s: the lab's disk has far more room", full, in)
	}
}

// A recorded 18 pair's setup exports its replication limits with what was
// in use: the origins (max_active_replication_origins on 18) held by its
// one apply worker, the publisher's one slot and walsender.
func TestARecordedSetupExportsItsReplicationLimitsInUse(t *testing.T) {
	col, _ := replay(t, "conflict-missing-pg18-diag.json", 2*time.Second, 6*time.Second)
	for _, c := range []struct {
		server, setting, sub string
		max, used            float64
	}{
		{"publisher", "max_replication_slots", "", 20, 1},
		{"publisher", "max_wal_senders", "", 20, 1},
		{"subscriber", "max_logical_replication_workers", "", 12, 1},
		{"subscriber", "max_active_replication_origins", "", 10, 1},
		{"subscriber", "max_sync_workers_per_subscription", "lab_sub", 2, 0},
		{"subscriber", "max_parallel_apply_workers_per_subscription", "lab_sub", 2, 0},
	} {
		l := map[string]string{"server": c.server, "setting": c.setting, "subscription": c.sub}
		max := one(t, gather(t, col, "lagscope_replication_limit", l), c.setting)
		used := one(t, gather(t, col, "lagscope_replication_limit_in_use", l), c.setting+" in use")
		if max != c.max || used != c.used {
			t.Errorf("%s %s: %g of %g in use, want %g of %g (the recorded setup)", c.server, c.setting, used, max, c.used, c.max)
		}
	}
	if got := gather(t, col, "lagscope_replication_limit", map[string]string{"setting": "max_replication_slots", "server": "subscriber"}); len(got) != 0 {
		t.Errorf("18: the subscriber's origins are max_active_replication_origins, yet max_replication_slots is exported for it: %v", got)
	}
}
