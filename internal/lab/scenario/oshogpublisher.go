package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// osHogPublisher: busy-loop processes outside PostgreSQL share the
// publisher's pinned CPU with the walsender; no load inside the server.
var osHogPublisher = Scenario{
	Recipe: lab.Recipe{Name: "os-hog-publisher", Summary: "flat table, apply-bound's backlog size, publisher idle; 3 busy-loop processes outside PostgreSQL (sh) run on the publisher's pinned CPU: the walsender waits on the run queue",
		Layout: lab.Flat, Steps: []lab.Step{lab.Backlog(1.2), lab.OSHogs(true, 3), lab.Enable}},
	Expect: Expect{ByHand: "in make test on 18.4 (2026-12-05, fresh clone of 87520a8) the 3 busy loops left the walsender 44% of a core and 28% run queue (the state check wants 30%) and diagnose named subscriber-apply-cpu; 6 of 6 passed by hand before: its spread needs 10+ runs before CI runs it again",
		Verdict: model.WalsenderStarved, Recorded: "backlog, publisher idle, 3 busy-loop processes outside PostgreSQL on the publisher's pinned CPU",
		Check: func(r *lab.Result) []string {
			var p problems
			// The loops run in another scheduling group than the servers
			// (the lab's own process tree): the kernel shares the CPU
			// between the groups, so however many loops run the walsender
			// gets about half of it (15.18: 43-49% CPU, 40-45% run queue
			// beside 3 and 6 loops; 18.4: 46% run queue beside 3).
			if r.Walsender.RunqueueShare < 0.3 {
				p.add("walsender runqueue_share = %.2f beside 3 busy loops, want >= 0.3", r.Walsender.RunqueueShare)
			}
			return p
		},
		Diagnosis: func(d Diagnosed) []string { return competingNamed(d, model.StageWalsender) }},
}
