package exporter

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/monitor"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/testkit/recordings"
)

// replayPhysical feeds a recorded physical standby's run (the lab's, in
// ../classify/testdata/physical) to a collector as a physical monitor
// would: steps of 2 s, each judged with diagnose.BuildPhysical over the
// last 10 s. edit, if set, changes the recording first.
func replayPhysical(t *testing.T, name string, edit func(*sample.Recording)) *Collector {
	t.Helper()
	rec, err := recordings.Read("../classify/testdata/physical", name)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(rec)
	}
	col := NewCollector([]monitor.Options{{Pair: "lab", Diagnose: diagnose.Options{Primary: "x", Standby: "y"}}})
	var steps []*sample.Recording
	for from := rec.Start; from.Before(rec.End); from = from.Add(2 * time.Second) {
		s := slice(rec, from, from.Add(2*time.Second))
		steps = monitor.Trim(append(steps, s), 10*time.Second)
		w := sample.Merge(steps...)
		rep := diagnose.BuildPhysical(w, 20)
		col.Update(monitor.Update{Pair: "lab", At: s.End, Step: s, Window: w, Report: &rep, Down: map[string]string{}})
	}
	return col
}

// Replay paused on 18.4 with 103 MB received and not replayed: the path's
// verdict and its stage (the startup process) on the shared series under standby=lab_standby, the
// backlog at the startup process, replay at 0 B/s, the pause flag, and a
// catch-up of +Inf (never at this rate).
func TestAPausedStandbyExportsItsBacklogAndNeverCatchingUp(t *testing.T) {
	col := replayPhysical(t, "replay-paused-pg18-diag", nil)
	sb := map[string]string{"pair": "lab", "standby": "lab_standby"}
	with := func(k, v string) map[string]string {
		m := map[string]string{k: v}
		for a, b := range sb {
			m[a] = b
		}
		return m
	}
	if v := one(t, gather(t, col, "lagscope_verdict", with("verdict", "replay-paused")), "verdict"); v != 1 {
		t.Errorf("lagscope_verdict{verdict=replay-paused} = %g, want 1", v)
	}
	if v := one(t, gather(t, col, "lagscope_bottleneck", with("stage", "startup")), "bottleneck startup"); v != 1 {
		t.Errorf("lagscope_bottleneck{stage=startup} = %g, want 1 (the paused startup process holds the path)", v)
	}
	if n := len(gather(t, col, "lagscope_bottleneck", sb)); n != len(PhysicalStages) {
		t.Errorf("%d bottleneck series, want one per physical stage (%d)", n, len(PhysicalStages))
	}
	unreplayed := one(t, gather(t, col, "lagscope_lag_bytes", with("part", "received_not_replayed")), "received_not_replayed")
	total := one(t, gather(t, col, "lagscope_standby_replay_lag_bytes", sb), "replay lag bytes")
	if unreplayed < 50e6 || total < unreplayed {
		t.Errorf("received_not_replayed %g, replay lag %g: want the 100 MB backlog, the total at least it", unreplayed, total)
	}
	if v := one(t, gather(t, col, "lagscope_standby_wal_bytes_per_second", with("position", "replayed")), "replayed rate"); v != 0 {
		t.Errorf("replayed %g B/s, want 0", v)
	}
	if v := one(t, gather(t, col, "lagscope_standby_wal_bytes_per_second", with("position", "generated")), "generated rate"); v < 1e6 {
		t.Errorf("generated %g B/s, want the primary's ~10 MB/s", v)
	}
	if v := one(t, gather(t, col, "lagscope_standby_catch_up_seconds", sb), "catch-up"); !math.IsInf(v, 1) {
		t.Errorf("catch-up %g s, want +Inf: replay stands still while the primary writes", v)
	}
	if v := one(t, gather(t, col, "lagscope_standby_replay_paused", sb), "paused"); v != 1 {
		t.Errorf("replay_paused = %g, want 1", v)
	}
	if v := one(t, gather(t, col, "lagscope_standby_replay_delayed", sb), "delayed"); v != 0 {
		t.Errorf("replay_delayed = %g, want 0", v)
	}
	if s := one(t, gather(t, col, "lagscope_standby_replay_lag_seconds", sb), "lag seconds"); s < 5 {
		t.Errorf("replay lag %g s, want the ~10 s the primary took to write the backlog", s)
	}
	for _, side := range []string{"primary", "standby"} {
		if v := one(t, gather(t, col, "lagscope_up", map[string]string{"pair": "lab", "server": side}), side); v != 1 {
			t.Errorf("lagscope_up{server=%s} = %g, want 1", side, v)
		}
	}
	if n := len(gather(t, col, "lagscope_up", map[string]string{"server": "publisher"})); n != 0 {
		t.Errorf("%d lagscope_up{server=publisher} series on a physical pair, want none", n)
	}
	if n := len(gather(t, col, "lagscope_slot_retained_bytes", map[string]string{"pair": "lab"})); n != 1 {
		t.Errorf("%d retained-WAL series of the standby's physical slot, want 1", n)
	}
}

// An idle primary with a caught-up standby (18.4 and 15.18): every lag 0,
// the catch-up forecast 0 (nothing behind, not "never"), replay not paused.
func TestAnIdleStandbyExportsZeroLag(t *testing.T) {
	for _, f := range []string{"standby-idle-pg18-diag", "standby-idle-pg15-diag"} {
		t.Run(f, func(t *testing.T) {
			col := replayPhysical(t, f, nil)
			sb := map[string]string{"pair": "lab", "standby": "lab_standby"}
			for _, m := range []string{"lagscope_standby_replay_lag_bytes", "lagscope_standby_replay_lag_seconds", "lagscope_lag_seconds", "lagscope_standby_catch_up_seconds", "lagscope_standby_replay_paused"} {
				if v := one(t, gather(t, col, m, sb), m); v != 0 {
					t.Errorf("%s = %g, want 0", m, v)
				}
			}
			for _, v := range gather(t, col, "lagscope_lag_bytes", sb) {
				if v != 0 {
					t.Errorf("lagscope_lag_bytes part = %g, want 0", v)
				}
			}
			if v := one(t, gather(t, col, "lagscope_verdict", map[string]string{"standby": "lab_standby", "verdict": "caught-up"}), "caught-up"); v != 1 {
				t.Errorf("caught-up = %g, want 1", v)
			}
		})
	}
}

// recovery_min_apply_delay shows as the delayed flag and its seconds.
func TestADelayedStandbyExportsItsDelay(t *testing.T) {
	col := replayPhysical(t, "replay-delayed-pg18-diag", nil)
	sb := map[string]string{"pair": "lab", "standby": "lab_standby"}
	if v := one(t, gather(t, col, "lagscope_standby_replay_delayed", sb), "delayed"); v != 1 {
		t.Errorf("replay_delayed = %g, want 1", v)
	}
	if v := one(t, gather(t, col, "lagscope_standby_min_apply_delay_seconds", sb), "delay"); v <= 0 {
		t.Errorf("min_apply_delay = %g s, want the lab's delay", v)
	}
	if v := one(t, gather(t, col, "lagscope_verdict", map[string]string{"standby": "lab_standby", "verdict": "replay-delayed"}), "verdict"); v != 1 {
		t.Errorf("replay-delayed = %g, want 1", v)
	}
}

// The conflict scenario's cancelled queries are the server's counters by
// kind, and a standby whose application_name is not UTF-8 is exported
// under its escaped name; the exposition passes the linter.
func TestStandbyConflictsAndAHostileStandbyName(t *testing.T) {
	col := replayPhysical(t, "replay-conflict-pg18-diag", func(rec *sample.Recording) {
		for i := range rec.Ticks {
			for j := range rec.Ticks[i].Reads {
				r := &rec.Ticks[i].Reads[j]
				for k := range r.Senders {
					if r.Senders[k].AppName == "lab_standby" {
						r.Senders[k].AppName = "odd\xff\"}\n"
					}
				}
			}
		}
	})
	sb := map[string]string{"pair": "lab", "standby": "odd\\xff\"}\n"}
	if v := one(t, gather(t, col, "lagscope_verdict", map[string]string{"standby": sb["standby"], "verdict": "replay-conflict"}), "verdict"); v != 1 {
		t.Errorf("replay-conflict = %g under the escaped name, want 1", v)
	}
	if n := len(gather(t, col, "lagscope_standby_conflict_cancels_total", sb)); n == 0 {
		t.Error("no conflict counters")
	}
	problems, err := testutil.CollectAndLint(col)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
	for _, s := range gatherSeries(t, col, "lagscope_standby_replay_lag_bytes") {
		if strings.Contains(s.labels["standby"], "\xff") {
			t.Errorf("label value %q holds the raw byte", s.labels["standby"])
		}
	}
}
