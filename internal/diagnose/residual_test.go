package diagnose

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/audit"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/testkit/recordings"
)

// Over every recording: no what-if figure rests on a residual the report
// does not attribute. A figure that puts the apply worker's time beyond the
// calibrated cost of its WAL down to something names it
// (Prediction.Residual): an idle apply worker's wakes, or per-row cost
// sources of the path's setup, read whole, that are all of its sources
// beyond the writes. binary=on, whose gain would be that residual put down
// to input functions lagscope has not measured, never gets a figure above
// 1x; disable-trigger and drop-constraint, whose figures from the WAL take
// the whole residual, give one only as a lower bound (a trigger's measured
// sleep) or with the residual attributed.
func TestNoWhatIfFigureRestsOnAnUnattributedResidual(t *testing.T) {
	exps, err := recordings.Load("../classify/testdata")
	if err != nil {
		t.Fatal(err)
	}
	figures, attributed := 0, 0
	for _, e := range exps {
		name := strings.TrimSuffix(filepath.Base(e.File), ".json")
		rec, err := recordings.Read("../classify/testdata", name)
		if err != nil {
			t.Fatal(err)
		}
		read := setupRead(rec)
		for _, p := range Build(rec, nil, 20).Paths {
			var costs model.RowCosts
			if s := model.PlanPath(model.PathFacts{Slot: p.Slot, Subscription: p.Subscription}, model.LinkRates{}, read).Setup; s != nil {
				costs = s.Costs
			}
			for _, w := range p.WhatIf {
				if w.NotPredicted != "" {
					if len(w.Residual) > 0 {
						t.Errorf("%s: %s is not predicted but names a residual %q", name, w.Change, w.Residual)
					}
					continue
				}
				figures++
				switch w.Change {
				case "binary=on":
					if w.Speedup > 1.01 {
						t.Errorf("%s: binary=on predicts %.2fx: the residual is never the input functions'", name, w.Speedup)
					}
				case "disable-trigger", string(model.KeyDropConstraint):
					if !w.AtLeast && len(w.Residual) == 0 {
						t.Errorf("%s: %s gives a figure from the WAL with no residual attributed: %s", name, w.Change, w)
					}
				}
				var sources []string
				for _, r := range w.Residual {
					if r == model.IdleWakes {
						continue
					}
					sources = append(sources, r)
				}
				if len(w.Residual) > 0 {
					attributed++
				}
				if len(sources) == 0 {
					continue
				}
				if !costs.Read {
					t.Errorf("%s: %s attributes its residual to %q, but the setup's constraints were not read", name, w.Change, sources)
				}
				for _, c := range costs.Sources {
					if n := sourceName(c); !slices.Contains(sources, n) {
						t.Errorf("%s: %s attributes its residual to %q alone, but the setup also shows %s", name, w.Change, sources, n)
					}
				}
				for _, s := range sources {
					if !slices.ContainsFunc(costs.Sources, func(c audit.RowCost) bool { return sourceName(c) == s }) {
						t.Errorf("%s: %s attributes its residual to %s, which the setup does not show", name, w.Change, s)
					}
				}
			}
		}
	}
	if figures < 10 {
		t.Errorf("only %d figures over the recordings: the planner does not run", figures)
	}
	t.Logf("%d figures over the recordings, %d of them with an attributed residual", figures, attributed)
}

// sourceName is a cost source as Prediction.Residual names it.
func sourceName(c audit.RowCost) string { return c.Name() + " on " + c.Table }
