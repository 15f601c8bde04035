package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// walsenderStarved: the load keeps the publisher's CPUs busy; the
// walsender waits on the run queue.
var walsenderStarved = Scenario{
	Recipe: lab.Recipe{Name: "walsender-starved", Summary: "flat table, backlog, the 16-client load keeps running on the publisher's CPUs",
		Layout: lab.Flat, Steps: []lab.Step{lab.BacklogUnderLoad(0.3), lab.Enable}},
	Expect: Expect{Verdict: model.WalsenderStarved, Recorded: "backlog, 16 pgbench clients keep running on the publisher's CPU", ExactWithoutProc: true,
		Check: func(r *lab.Result) []string {
			var p problems
			if r.Walsender.RunqueueShare < 0.5 {
				p.add("walsender runqueue_share = %.2f, want >= 0.5 (idle case: <= 0.15)", r.Walsender.RunqueueShare)
			}
			return p
		}},
}
