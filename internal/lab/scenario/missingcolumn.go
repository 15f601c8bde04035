package scenario

import (
	"strings"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// missingColumn: the subscriber's table lacks a published column; the
// apply worker stops at its first change.
var missingColumn = Scenario{
	Recipe: lab.Recipe{Name: "missing-column", Summary: "flat table, backlog, publisher idle; the subscriber's copy of hot lacks the published column v: the apply worker stops at its first change with an error, again at each retry",
		Layout: lab.Flat, Steps: []lab.Step{lab.Backlog(0.3), lab.DropSubColumn, lab.EnableNoWait}},
	Expect: Expect{Verdict: model.Stalled, Recorded: "the subscriber's copy of hot lacks the published column v: the apply worker fails at its first change and again at each retry",
		Check: func(r *lab.Result) []string {
			var p problems
			checkNothingApplied(&p, r)
			return p
		},
		Diagnosis: func(d Diagnosed) []string {
			var p problems
			if !strings.Contains(d.Path.Cause, "missing on the subscriber: "+lab.MissingColumn+" ") {
				p.add("cause %q, want the missing column named", d.Path.Cause)
			}
			return p
		}},
}
