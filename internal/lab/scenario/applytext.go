package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// applyText: apply-bound with the subscription in text, the state 'lab
// whatif --change binary=on' is measured from.
var applyText = Scenario{
	Recipe: lab.Recipe{Name: "apply-text", Summary: "apply-bound with the subscription in text (binary = false, PostgreSQL's default): the apply worker also runs each column's input function",
		Layout: lab.Flat, SubIndexes: 3, Text: true,
		// The launcher restarts an apply worker whose options changed
		// (binary=on) after this long at most: 5 s by default.
		SubSettings: map[string]string{"wal_retrieve_retry_interval": "200ms"},
		Steps:       []lab.Step{lab.Backlog(1.2), lab.Enable},
		UntilBelow:  lab.DrainedMB, Drains: true},
	Expect:    Expect{Verdict: model.SubscriberApplyCPU},
	Elsewhere: "'lab whatif --change binary=on' (docs/whatif.md), by hand",
}
