package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// conflictMissing: updates of rows missing on the subscriber, skipped as
// update_missing conflicts.
var conflictMissing = Scenario{
	Recipe: lab.Recipe{Name: "conflict-missing", Summary: "apply-bound's flat table with 3 extra subscriber indexes and a backlog; before the subscription is enabled, rows 1-2000 of hot are deleted on the subscriber only: every update of them is an update_missing conflict, skipped (counted on 18+)",
		// The extra indexes keep the apply worker the limit: without them it
		// ran as fast as the walsender (both 87-88% CPU on 15.18 in make
		// test) and the backlog drained within the window: inconclusive.
		Layout: lab.Flat, SubIndexes: 3, Steps: []lab.Step{lab.Backlog(1.6), lab.DeleteSubRows, lab.Enable}, UntilBelow: lab.DrainedMB},
	Expect: Expect{Verdict: model.SubscriberApplyCPU, Recorded: "seed 000's flat backlog, publisher idle, rows 1-2000 of hot deleted on the subscriber only: the updates of them are update_missing conflicts (18), skipped", OnceBefore18: true, EveryVersion: conflictsCounted, ApplyErrors: "update_missing",
		Check: func(r *lab.Result) []string {
			var p problems
			// The backlog is applied (the updates of missing rows skipped).
			if r.ConsumedMBps <= 0 || r.Lag.Total >= r.Lag.Start {
				p.add("confirmed %.2f MB/s, lag %d of %d bytes; want the backlog applied", r.ConsumedMBps, r.Lag.Total, r.Lag.Start)
			}
			return p
		},
		Diagnosis: func(d Diagnosed) []string {
			var p problems
			diagnosedConflict(&p, d, "update_missing")
			return p
		}},
}
