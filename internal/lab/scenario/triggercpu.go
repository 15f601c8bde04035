package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// triggerCPU: a trigger on the subscriber computes in the apply worker.
var triggerCPU = Scenario{
	Recipe: lab.Recipe{Name: "trigger-cpu", Summary: "flat table, backlog, publisher idle; a row trigger on the subscriber's copy, ENABLE ALWAYS, computes per replicated row (no extra index): the apply worker saturates its CPU in the trigger",
		Layout:     lab.Flat,
		Steps:      []lab.Step{lab.Backlog(0.4), lab.ReplicaTrigger(lab.TriggerCPU), lab.Enable},
		UntilBelow: lab.DrainedMB, Drains: true},
	Expect: Expect{ComparedBy: "trigger-sleep: the same row trigger (ENABLE ALWAYS, RETURN NEW) fires in the apply worker for the same UPDATE backlog; only its body differs, computing instead of sleeping", Verdict: model.SubscriberApplyCPU, Recorded: "a row trigger on the subscriber's hot, ENABLE ALWAYS, computes per replicated row, no extra index: the apply worker runs on a full core in the trigger",
		Check: func(r *lab.Result) []string {
			var p problems
			checkApplyOnCPU(&p, r)
			checkData(&p, r)
			return p
		},
		Diagnosis: func(d Diagnosed) []string { return diagnosedTrigger(d.Path, "ran on a CPU") }},
}
