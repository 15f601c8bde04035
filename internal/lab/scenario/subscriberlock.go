package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// subscriberLock: a subscriber session holds a table lock the apply worker
// waits on.
var subscriberLock = Scenario{
	Recipe: lab.Recipe{Name: "subscriber-lock", Summary: "flat table, backlog, publisher idle; a subscriber session (lab-lock-holder) holds LOCK TABLE hot IN SHARE MODE through the window: the apply worker waits on the lock",
		Layout: lab.Flat,
		// Nothing drains while the lock is held: a modest backlog is enough
		// to see, and drains quickly once the lock goes.
		Steps:      []lab.Step{lab.Backlog(0.5), lab.HoldLock("SHARE"), lab.Enable},
		UntilBelow: lab.DrainedMB, Drains: true},
	Expect: Expect{Verdict: model.SubscriberWaits, Recorded: "a subscriber session holds LOCK TABLE hot IN SHARE MODE: the apply worker waits on the relation lock",
		Check: func(r *lab.Result) []string {
			var p problems
			if share := r.Apply.TypeShare("Lock"); share < 0.5 {
				p.add("apply waited on a Lock in %.0f%% of its probes (%v), want >= 50%%", 100*share, r.Apply.TypeShares)
			}
			if n := blockerTicks(r, lab.LockHolderApp); n == 0 {
				p.add("no tick recorded %s as the apply worker's blocker", lab.LockHolderApp)
			}
			checkData(&p, r)
			return p
		},
		Diagnosis: func(d Diagnosed) []string {
			var p problems
			found := false
			for _, b := range d.Path.Blockers {
				found = found || b.AppName == lab.LockHolderApp
			}
			if d.Path.Limit != model.StageApply || !found {
				p.add("limit %q blockers %+v, want the apply stage blocked by %s", d.Path.Limit, d.Path.Blockers, lab.LockHolderApp)
			}
			return p
		}},
}
