package diagnose

import (
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/testkit/recordings"
)

// The lab's hash4-1 on 15.18 (4 partitions under one subscription, the
// apply worker the limit, the subscriber pinned to CPU 1 of the host's 2):
// the split is offered without a figure, the apply worker's affinity
// named; the same samples without the allowed CPUs (a recording from an
// older lagscope) predict split=2 over the host's CPUs, and say so (the
// 1.6x that was promised before).
func TestASplitOfTheLabsPinnedSubscriberGetsNoFigure(t *testing.T) {
	rec, err := recordings.Read("testdata", "hash4-1-pg15-pinned")
	if err != nil {
		t.Fatal(err)
	}
	split := func(t *testing.T) model.Prediction {
		t.Helper()
		p := Build(rec, nil, 20).Paths[0]
		if p.Name != model.SubscriberApplyCPU {
			t.Fatalf("verdict %s, want %s", p.Name, model.SubscriberApplyCPU)
		}
		for _, w := range p.WhatIf {
			if strings.HasPrefix(w.Change, "split=") {
				return w
			}
		}
		t.Fatalf("what-if %+v: want a split", p.WhatIf)
		return model.Prediction{}
	}
	if w := split(t); w.Change != "split=N" || w.Drain != 0 || !strings.Contains(w.NotPredicted, "the apply worker may run on 1 of the host's 2 CPUs (its CPU affinity)") {
		t.Errorf("%+v: want split=N without a figure, the affinity named", w)
	}
	for i := range rec.Ticks {
		for j := range rec.Ticks[i].Procs {
			rec.Ticks[i].Procs[j].CPUsAllowed, rec.Ticks[i].Procs[j].CPUsAllowedBy = 0, ""
		}
	}
	if w := split(t); w.Change != "split=2" || w.Drain == 0 || !strings.Contains(w.Model, "the CPUs the apply worker may run on were not read: this assumes the host's 2") {
		t.Errorf("%+v: without the allowed CPUs, want split=2 over the host's, said", w)
	}
}
