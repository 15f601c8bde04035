package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// stalled: the subscription stays disabled while the load runs.
var stalled = Scenario{
	Recipe: lab.Recipe{Name: "stalled", Summary: "the subscription stays disabled while the load runs: lag grows, nothing is consumed",
		Layout: lab.Flat, Steps: []lab.Step{lab.FullLoad}},
	Expect: Expect{Verdict: model.Stalled, Recorded: "the subscription stays disabled while the load runs",
		Check: func(r *lab.Result) []string {
			var p problems
			if r.ConsumedMBps != 0 || r.GeneratedMBps <= 0 {
				p.add("consumed %.2f MB/s, generated %.2f MB/s; want 0 and > 0", r.ConsumedMBps, r.GeneratedMBps)
			}
			return p
		}},
}
