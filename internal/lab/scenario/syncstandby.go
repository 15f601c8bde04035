package scenario

import (
	"strings"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// syncStandby: the apply worker waits for its server's synchronous
// standby.
var syncStandby = Scenario{
	Recipe: lab.Recipe{Name: "sync-standby", Summary: "flat table, backlog, publisher idle; the subscriber has a synchronous standby behind a 1 MB/s link and the subscription commits with synchronous_commit = on: the apply worker waits on SyncRep",
		Layout: lab.Flat,
		// The subscriber applies about 1 MB/s behind its standby's link: a
		// short backlog outlasts the window and drains fast once lifted.
		Steps:      []lab.Step{lab.WithSyncStandby(1_000_000), lab.Backlog(0.3), lab.Enable},
		UntilBelow: lab.DrainedMB, Drains: true},
	Expect: Expect{ComparedBy: updatesCompared, Verdict: model.SubscriberWaits, Recorded: "backlog with the publisher idle; the subscriber has a physical standby (sub_standby) behind a 1 MB/s link as its synchronous standby, and the subscription commits with synchronous_commit = on: the apply worker waits on SyncRep",
		Check: func(r *lab.Result) []string {
			var p problems
			if share := r.Apply.Share("SyncRep"); share < 0.5 {
				p.add("apply waited on SyncRep in %.0f%% of its probes (%v), want >= 50%%", 100*share, r.Apply.WaitShares)
			}
			checkData(&p, r)
			return p
		},
		Diagnosis: func(d Diagnosed) []string {
			var p problems
			if !strings.Contains(strings.Join(model.EvidenceTexts(d.Path.Evidence), " "), "synchronous standby") {
				p.add("evidence %q, want the synchronous standby named", model.EvidenceTexts(d.Path.Evidence))
			}
			return p
		}},
}
