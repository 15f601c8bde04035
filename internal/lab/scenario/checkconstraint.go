package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// checkConstraint: a CHECK constraint on the subscriber calls a function
// that computes, once per replicated row, in the apply worker.
var checkConstraint = Scenario{
	Recipe: lab.Recipe{Name: "check-constraint", Summary: "flat table, backlog, publisher idle; a CHECK constraint on the subscriber's copy only (lab_costly_check, NOT VALID) calls a PL/pgSQL function computing per row: the apply worker saturates its CPU in the constraint",
		Layout:     lab.Flat,
		Steps:      []lab.Step{lab.Backlog(0.4), lab.CostlyCheck, lab.Enable},
		UntilBelow: lab.DrainedMB, Drains: true},
	Expect: Expect{Verdict: model.SubscriberApplyCPU, Recorded: "a CHECK constraint on the subscriber's hot only calls a PL/pgSQL function that computes per replicated row, no extra index: the apply worker runs on a full core in the constraint",
		Check: func(r *lab.Result) []string {
			var p problems
			checkRowCost(&p, r)
			checkData(&p, r)
			return p
		},
		Diagnosis: func(d Diagnosed) []string { return diagnosedRowCost(d.Path, "constraint", lab.CheckName, false) }},
}
