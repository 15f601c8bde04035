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
	Expect: Expect{Verdict: model.WalsenderStarved, Recorded: "backlog, publisher idle, 3 busy-loop processes outside PostgreSQL on the publisher's pinned CPU",
		Check: func(r *lab.Result) []string {
			var p problems
			// Each loop is a session of its own, as the server is: with
			// autogroup scheduling the walsender's session gets about a
			// quarter of the CPU beside 3 loops (lab.StartOSHogs). With
			// the loops in one group it got half (15.18: 43-49% CPU,
			// 40-45% run queue; 18.4: 26-45% run queue) and raced the
			// apply worker: 6 of 10 runs made the state on 18.4.
			if r.Walsender.RunqueueShare < 0.3 {
				p.add("walsender runqueue_share = %.2f beside 3 busy loops, want >= 0.3", r.Walsender.RunqueueShare)
			}
			return p
		},
		Diagnosis: func(d Diagnosed) []string { return competingNamed(d, model.StageWalsender) }},
}
