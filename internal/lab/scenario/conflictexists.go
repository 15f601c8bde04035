package scenario

import (
	"strings"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// conflictExists: an insert of a key the subscriber already has stops the
// apply worker at each retry.
var conflictExists = Scenario{
	Recipe: lab.Recipe{Name: "conflict-exists", Summary: "a key inserted on the subscriber, then on the publisher, ahead of a backlog: the apply worker fails on the insert (insert_exists on 18+) and again at each retry",
		Layout: lab.Flat, Steps: []lab.Step{lab.TakeKey, lab.Backlog(0.3), lab.EnableNoWait}},
	Expect: Expect{Verdict: model.Stalled, Recorded: "a key inserted on the subscriber, then on the publisher, ahead of a backlog: the apply worker fails on the insert (insert_exists on 18) and again at each retry", OnceBefore18: true, EveryVersion: conflictsCounted, ApplyErrors: "insert_exists",
		Check: func(r *lab.Result) []string {
			var p problems
			// Stopped at the insert: nothing of the backlog behind it applied.
			checkNothingApplied(&p, r)
			return p
		},
		Diagnosis: func(d Diagnosed) []string {
			var p problems
			diagnosedConflict(&p, d, "insert_exists")
			if !strings.Contains(d.Path.Cause, "apply_error_count") {
				p.add("cause %q, want the apply errors", d.Path.Cause)
			}
			return p
		}},
}
