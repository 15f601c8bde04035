package model

import (
	"strings"
	"testing"
)

// A split is predicted over the CPUs the subscriber's apply worker may run
// on, not the host's: pinned to 1 of 2 it gets no figure and the reason
// names the affinity; on 2 of 4 (a cpuset) it is split=2 and says so; the
// host's CPUs stand in, said, when the apply worker's were not read.
func TestASplitIsPredictedOverTheCPUsTheApplyWorkerMayRunOn(t *testing.T) {
	base := Path{Limit: StageApply, Drain: 10e6, PubCPUs: 4, Setup: &RemedySetup{TableChanges: []int64{100, 100, 100, 100}},
		Stages: []Stage{st("walsender", 0.2, 0, 0), unknownLink, st("apply", 1, 0, 0)}}
	for _, c := range []struct {
		name      string
		host      int
		apply     ApplyCPUs
		change    string
		predicted bool
		says      string
	}{
		{"pinned to 1 of the host's 2 CPUs (the lab's subscriber): no figure", 2, ApplyCPUs{1, "affinity"}, "split=N", false, "the apply worker may run on 1 of the host's 2 CPUs (its CPU affinity)"},
		{"a 1.5-CPU limit on 4: 1 whole CPU, no figure", 4, ApplyCPUs{1, "cpu.max"}, "split=N", false, "1 of the host's 4 CPUs (its cgroup's CPU limit"},
		{"a cpuset of 2 of 4: split=2, said", 4, ApplyCPUs{2, "cpuset"}, "split=2", true, "the apply worker may run on 2 of the host's 4 CPUs (its cgroup's cpuset)"},
		{"all of the host's 2: split=2", 2, ApplyCPUs{2, "affinity"}, "split=2", true, "2 apply workers on 2 cores"},
		{"not read (an older recording): the host's 2, said", 2, ApplyCPUs{}, "split=2", true, "the CPUs the apply worker may run on were not read: this assumes the host's 2"},
		{"neither read: the assumption, said", 0, ApplyCPUs{}, "split=4", true, "the subscriber's CPUs are not known: this assumes 4 free"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := base
			p.SubCPUs, p.ApplyCPUs = c.host, c.apply
			var got *Prediction
			for _, pr := range Plan(p) {
				if strings.HasPrefix(pr.Change, "split=") {
					got = &pr
				}
			}
			if got == nil || got.Change != c.change {
				t.Fatalf("predictions %v, want %s", changes(Plan(p)), c.change)
			}
			text := got.Model
			if !c.predicted {
				text = got.NotPredicted
			}
			if (got.Drain > 0) != c.predicted || !strings.Contains(text, c.says) {
				t.Errorf("%s: drain %.0f, text %q; want predicted %v, saying %q", got.Change, got.Drain, text, c.predicted, c.says)
			}
		})
	}
}
