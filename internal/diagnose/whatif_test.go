package diagnose

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/testkit/recordings"
)

// pathsOf builds the report of a recording in classify's testdata.
func pathsOf(t *testing.T, name string) []report.Path {
	t.Helper()
	rec, err := recordings.Read("../classify/testdata", name)
	if err != nil {
		t.Fatal(err)
	}
	return Build(rec, nil, 20).Paths
}

// Every prediction of every recording is capped by every other measured
// stage (no remedy buys more than the next limit allows), buys something,
// names its model, and a remedy of the setup appears only where the setup
// was read and names its cause for this path.
func TestEveryPredictionIsCappedAndFitsTheSetup(t *testing.T) {
	exps, err := recordings.Load("../classify/testdata")
	if err != nil {
		t.Fatal(err)
	}
	remedy := func(change string) model.Remedy {
		for _, r := range model.Remedies {
			if r.Names(change) {
				return r
			}
		}
		t.Fatalf("%s: no remedy of that name", change)
		return model.Remedy{}
	}
	predicted := 0
	for _, e := range exps {
		name := strings.TrimSuffix(filepath.Base(e.File), ".json")
		rec, err := recordings.Read("../classify/testdata", name)
		if err != nil {
			t.Fatal(err)
		}
		read := setupRead(rec)
		for _, p := range Build(rec, nil, 20).Paths {
			found := map[string]bool{}
			if s := model.PlanPath(model.PathFacts{Slot: p.Slot, Subscription: p.Subscription}, model.LinkRates{}, read).Setup; s != nil {
				found = s.Found
			}
			drain := p.DrainRate()
			for _, w := range p.WhatIf {
				if check := remedy(w.Change).Finding; check != "" && !found[string(check)] {
					t.Errorf("%s: %s offered without a %s finding for this path", name, w.Change, check)
				}
				if n := changedTables(p); strings.HasPrefix(w.Change, "split=") && n < 2 {
					t.Errorf("%s: %s offered for %d table(s) that changed", name, w.Change, n)
				}
				if w.NotPredicted != "" {
					continue
				}
				predicted++
				if w.Model == "" || w.Speedup < 0.99 {
					t.Errorf("%s: %s", name, w)
				}
				for _, s := range p.Stages {
					if s.Name == remedy(w.Change).Stage || !s.Known() || s.Utilisation <= 0 {
						continue
					}
					// The stage's capacity as the report states it (its
					// headroom; the limit's own has none).
					c := drain / s.Work()
					if s.Headroom > 0 {
						c = drain * s.Headroom
					}
					if w.Drain > c*1.01 {
						t.Errorf("%s: %s predicts %.1f MB/s past the %s's capacity %.1f MB/s", name, w.Change, w.Drain/1e6, s.Name, c/1e6)
					}
				}
			}
		}
	}
	if predicted < 10 {
		t.Errorf("only %d predictions over the recordings: the planner does not run", predicted)
	}
}

// changedTables counts the path's tables that changed in the window.
func changedTables(p report.Path) int {
	n := 0
	for _, w := range p.Tables {
		if w.Changed() > 0 {
			n++
		}
	}
	return n
}

// The apply worker's capacity predicted from a starved window (CPU hogs on
// its core, or a cgroup quota) meets the drain measured in the same state
// without the starvation (apply-bound: the same table, indexes and load),
// recorded the same way on the same version: within 25%. Runs of
// different days, on this project's 2-vCPU machine.
func TestUnstarvedApplyPredictionsMeetTheUnstarvedRecordings(t *testing.T) {
	pairs := [][2]string{
		{"subscriber-starved-pg15-burst", "apply-bound-pg15-burst"},
		{"subscriber-starved-pg16-diag", "apply-bound-pg16-diag"},
		{"subscriber-starved-pg16-burst", "apply-bound-pg16-burst"},
		{"subscriber-starved-pg18-burst", "apply-bound-pg18-burst"},
		{"cpu-quota-pg16-diag", "apply-bound-pg16-diag"},
	}
	for _, pr := range pairs {
		starved, free := pathsOf(t, pr[0])[0], pathsOf(t, pr[1])[0]
		var got float64
		for _, w := range starved.WhatIf {
			if w.Change == "unstarve-apply" {
				got = w.Drain
			}
		}
		measured := max(free.DecodedMBps, free.ConfirmedMBps) * 1e6
		if free.Name != model.SubscriberApplyCPU || got == 0 {
			t.Fatalf("%s: no unstarve-apply prediction (%v), or %s is %s", pr[0], starved.WhatIf, pr[1], free.Name)
		}
		ratio := measured / got
		t.Logf("%s predicts %.1f MB/s; %s measured %.1f MB/s: %.2fx", pr[0], got/1e6, pr[1], measured/1e6, ratio)
		if ratio < 0.75 || ratio > 1.25 {
			t.Errorf("%s: measured / predicted %.2f, want within 25%%", pr[0], ratio)
		}
	}
}
