package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// syncStandbyWait: the publisher's commits wait for its synchronous
// standby to replay them (remote_apply), a round trip and a replay each.
var syncStandbyWait = Scenario{
	Recipe: lab.Recipe{Name: "sync-standby-wait", Summary: "the publisher's physical standby is its synchronous standby with synchronous_commit = remote_apply under the 16-client load: every commit waits (SyncRep) until the standby has received, flushed and replayed it and said so",
		Layout: lab.Flat,
		Steps:  []lab.Step{lab.WithStandby(lab.StandbyOptions{}), lab.SyncStandbyCommits, lab.FullLoad},
		Drains: true},
	Physical: true,
	Expect: Expect{Verdict: model.SyncStandbyWait,
		Check: func(r *lab.Result) []string {
			var p problems
			sr := standbyMeasured(&p, r)
			if sr == nil {
				return p
			}
			if w := sr.Clients.Share("SyncRep"); w < 0.8 || sr.SyncState != "sync" {
				p.add("the load's sessions waited on SyncRep in %.0f%% of their probes (%v), sync_state %q; want >= 80%% and sync", 100*w, sr.Clients.WaitShares, sr.SyncState)
			}
			if w := sr.Startup.Share("RecoveryApplyDelay"); w < 0.5 {
				p.add("the startup process waited on RecoveryApplyDelay in %.0f%% of its probes (%v); want >= 50%%", 100*w, sr.Startup.WaitShares)
			}
			checkStandbyData(&p, r)
			return p
		}},
}
