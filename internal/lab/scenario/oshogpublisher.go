package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// osHogPublisher: busy-loop processes outside PostgreSQL share the
// publisher's pinned CPU with the walsender; no load inside the server.
var osHogPublisher = Scenario{
	Recipe: lab.Recipe{Name: "os-hog-publisher", Summary: "flat table, apply-bound's backlog size, publisher idle; 6 busy-loop processes outside PostgreSQL (sh) run on the publisher's pinned CPU: the walsender waits on the run queue",
		Layout: lab.Flat, Steps: []lab.Step{lab.Backlog(1.2), lab.OSHogs(true, 6), lab.Enable}},
	Expect: Expect{Verdict: model.WalsenderStarved, Recorded: "backlog, publisher idle, 6 busy-loop processes outside PostgreSQL on the publisher's pinned CPU",
		Check: func(r *lab.Result) []string {
			var p problems
			if r.Walsender.RunqueueShare < 0.5 {
				p.add("walsender runqueue_share = %.2f beside 6 busy loops, want >= 0.5", r.Walsender.RunqueueShare)
			}
			return p
		},
		Diagnosis: func(d Diagnosed) []string { return competingNamed(d, model.StageWalsender) }},
}
