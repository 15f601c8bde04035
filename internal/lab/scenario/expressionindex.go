package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// expressionIndex: a GIN index over a text expression of the row on the
// subscriber, which the apply worker evaluates and tokenizes per row.
var expressionIndex = Scenario{
	Recipe: lab.Recipe{Name: "expression-index", Summary: "flat table, backlog, publisher idle; a GIN index on the subscriber's copy only (lab_words) over to_tsvector of a text made of the row's columns: the apply worker saturates its CPU tokenizing every replicated row",
		Layout: lab.Flat,
		// The apply worker drains about 6 MB/s through the index (15.18):
		// apply-bound's longer backlog outlasts the window (0.4 of it, 39-42
		// MB, drained in 7 s).
		Steps:      []lab.Step{lab.Backlog(1.2), lab.ExpressionIndex, lab.Enable},
		UntilBelow: lab.DrainedMB, Drains: true},
	Expect: Expect{ComparedBy: updatesCompared, Verdict: model.SubscriberApplyCPU, Recorded: "a GIN index over to_tsvector of the row's columns on the subscriber's hot only: the apply worker runs on a full core evaluating and tokenizing every replicated row",
		Check: func(r *lab.Result) []string {
			var p problems
			checkRowCost(&p, r)
			checkData(&p, r)
			return p
		},
		Diagnosis: func(d Diagnosed) []string { return diagnosedRowCost(d.Path, "index", lab.ExpressionIndexName, true) }},
}
