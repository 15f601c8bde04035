package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// generatedColumn: a STORED generated column on the subscriber (not on the
// publisher) whose expression the apply worker computes per row.
var generatedColumn = Scenario{
	Recipe: lab.Recipe{Name: "generated-column", Summary: "flat table, backlog, publisher idle; a STORED generated column on the subscriber's copy only (lab_twice) calls a PL/pgSQL function computing per row: the apply worker saturates its CPU computing it",
		Layout:     lab.Flat,
		Steps:      []lab.Step{lab.Backlog(0.4), lab.CostlyGeneratedColumn, lab.Enable},
		UntilBelow: lab.DrainedMB, Drains: true},
	Expect: Expect{Verdict: model.SubscriberApplyCPU, Recorded: "a STORED generated column on the subscriber's hot only whose expression calls a PL/pgSQL function that computes per replicated row: the apply worker runs on a full core computing it",
		Check: func(r *lab.Result) []string {
			var p problems
			checkRowCost(&p, r)
			checkData(&p, r)
			return p
		},
		Diagnosis: func(d Diagnosed) []string { return diagnosedRowCost(d.Path, "column", lab.GeneratedColumn, false) }},
}
