package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// triggerSleep: a trigger on the subscriber sleeps in the apply worker.
var triggerSleep = Scenario{
	Recipe: lab.Recipe{Name: "trigger-sleep", Summary: "flat table, backlog, publisher idle; a row trigger on the subscriber's copy, ENABLE ALWAYS, sleeps 1 ms per replicated row (pg_sleep): the apply worker waits on PgSleep",
		Layout: lab.Flat,
		// About 1,000 rows/s while the trigger sleeps: a short backlog
		// outlasts the window and drains in seconds once it is dropped.
		Steps:      []lab.Step{lab.Backlog(0.2), lab.ReplicaTrigger(lab.TriggerSleeps), lab.Enable},
		UntilBelow: lab.DrainedMB, Drains: true},
	Expect: Expect{Verdict: model.SubscriberWaits, Recorded: "a row trigger on the subscriber's hot, ENABLE ALWAYS, sleeps 1 ms per replicated row (pg_sleep): the apply worker waits on PgSleep",
		Check: func(r *lab.Result) []string {
			var p problems
			if share := r.Apply.Share("PgSleep"); share < 0.5 {
				p.add("apply slept (PgSleep) in %.0f%% of its probes (%v), want >= 50%%", 100*share, r.Apply.WaitShares)
			}
			checkData(&p, r)
			return p
		},
		Diagnosis: func(d Diagnosed) []string { return diagnosedTrigger(d.Path, "PgSleep") }},
}
