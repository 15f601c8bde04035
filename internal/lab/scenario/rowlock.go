package scenario

import (
	"strings"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// rowLock: a subscriber session holds row locks the apply worker waits on.
var rowLock = Scenario{
	Recipe: lab.Recipe{Name: "row-lock", Summary: "flat table, backlog, publisher idle; a subscriber session (lab-lock-holder) locks every row of hot with SELECT ... FOR UPDATE and keeps its transaction open through the window: the apply worker waits on its transaction id",
		Layout:     lab.Flat,
		Steps:      []lab.Step{lab.Backlog(0.5), lab.HoldRowLocks, lab.Enable},
		UntilBelow: lab.DrainedMB, Drains: true},
	Expect: Expect{ComparedBy: updatesCompared, Verdict: model.SubscriberWaits, Recorded: "a subscriber session (lab-lock-holder) locks every row of hot with SELECT ... FOR UPDATE and keeps its transaction open: the apply worker waits on its transaction id",
		Check: func(r *lab.Result) []string {
			var p problems
			if share := r.Apply.Share("transactionid"); share < 0.5 {
				p.add("apply waited on a transaction id in %.0f%% of its probes (%v), want >= 50%%", 100*share, r.Apply.WaitShares)
			}
			if n := blockerTicks(r, lab.LockHolderApp); n == 0 {
				p.add("no tick recorded %s as the apply worker's blocker", lab.LockHolderApp)
			}
			checkData(&p, r)
			return p
		},
		Diagnosis: func(d Diagnosed) []string {
			var p problems
			if d.Path.Name != model.SubscriberWaits || !strings.Contains(d.Path.Cause, "row locks") || !strings.Contains(d.Path.Cause, lab.LockHolderApp) {
				p.add("cause %q, want the row locks and their holder (%s) named", d.Path.Cause, lab.LockHolderApp)
			}
			return p
		}},
}
