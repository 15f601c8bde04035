package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// subscriberStarved: CPU-bound sessions share the subscriber's CPU with
// the apply worker.
var subscriberStarved = Scenario{
	Recipe: lab.Recipe{Name: "subscriber-starved", Summary: "apply-bound's backlog, while 2 CPU-bound sessions on the subscriber share its CPU with the apply worker: it waits on the run queue",
		Layout: lab.Flat, SubIndexes: 3, Steps: []lab.Step{lab.Backlog(1.2), lab.CPUHogs(2), lab.Enable},
		UntilBelow: lab.DrainedMB, Drains: true},
	Expect: Expect{ComparedBy: updatesCompared, Verdict: model.SubscriberStarved, Recorded: "apply-bound's backlog while 2 CPU-bound sessions (lab-cpu-hog) run on the subscriber's pinned CPU: the apply worker waits on the run queue",
		Check: func(r *lab.Result) []string {
			var p problems
			if r.Apply.RunqueueShare < 0.3 {
				p.add("apply runqueue_share %.2f (cpu %.2f) beside %s, want >= 0.3", r.Apply.RunqueueShare, r.Apply.CPUShare, lab.HogApp)
			}
			checkData(&p, r)
			return p
		}},
}
