package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// standbySlots: the walsender waits for an absent standby listed in
// synchronized_standby_slots.
var standbySlots = Scenario{
	Recipe: lab.Recipe{Name: "standby-slots", Summary: "backlog, publisher idle; the subscription's slot is a failover slot and synchronized_standby_slots lists the slot of a physical standby that is down (PostgreSQL 17+): the walsender waits for it",
		Layout: lab.Flat, MinMajor: 17, Needs: "synchronized_standby_slots and failover slots",
		Steps:      []lab.Step{lab.StandbySlot, lab.Backlog(1.6), lab.Enable},
		UntilBelow: lab.DrainedMB},
	Expect: Expect{Verdict: model.WalsenderWaitsStandby, Recorded: "backlog with the publisher idle; the subscription's slot is a failover slot and synchronized_standby_slots lists the physical slot of a standby that was stopped (17+)",
		Check: func(r *lab.Result) []string {
			var p problems
			if share := r.Walsender.Share("WaitForStandbyConfirmation"); share < 0.5 {
				p.add("walsender waited for the standby in %.0f%% of its probes (%v), want >= 50%%", 100*share, r.Walsender.WaitShares)
			}
			return p
		}},
}
