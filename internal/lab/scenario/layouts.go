package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// The layout scenarios are seed 000's three layouts, measured idle (the
// backlog drains) or busy (--busy: the load keeps running); 'lab
// reproduce bottleneck' measures them against the seed. pgbench and the
// publisher share one core here: generation runs below the apply rate, so
// the layouts build for longer than the window.
var (
	flat   = layout(lab.Flat, "flat", "seed 000 layout: plain table, 1 publication, 1 subscription (--busy keeps the load running)")
	hash41 = layout(lab.Hash4x1, "hash4-1", "seed 000 layout: hash partitioned in 4, 1 publication, 1 subscription")
	hash44 = layout(lab.Hash4x4, "hash4-4", "seed 000 layout: 4 partitions, 4 publications, 4 subscriptions")
)

func layout(l lab.Layout, name, summary string) Scenario {
	return Scenario{
		Recipe: lab.Recipe{Name: lab.ScenarioName(name), Summary: summary,
			Layout: l, Steps: []lab.Step{lab.Backlog(1.6), lab.Enable}, UntilBelow: lab.DrainedMB, Drains: true},
		Expect:    Expect{Verdict: model.SubscriberApplyCPU},
		Busy:      true,
		Elsewhere: "'lab reproduce bottleneck' (internal/lab/reproduce)",
	}
}

// busyLayout is a layout scenario measured with its load running: the
// walsender is starved of CPU.
func busyLayout(s Scenario) Scenario {
	s.Steps = []lab.Step{lab.BacklogUnderLoad(0.3), lab.Enable}
	s.UntilBelow, s.Drains, s.Verdict = 0, false, model.WalsenderStarved
	return s
}
