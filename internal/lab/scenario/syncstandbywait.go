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
			// Of the time the load's sessions spend in the server (not
			// waiting for pgbench's next statement: ClientRead), most
			// goes to waiting for the standby (18.4: SyncRep 67% of the
			// probes, ClientRead 27%: 92% of the rest).
			w, idle := sr.Clients.Share("SyncRep"), sr.Clients.Share("ClientRead")
			if w < 0.5 || w < 0.8*(1-idle) || sr.SyncState != "sync" {
				p.add("the load's sessions waited on SyncRep in %.0f%% of their probes, ClientRead %.0f%% (%v), sync_state %q; want >= 50%%, >= 80%% of the probes outside ClientRead, and sync", 100*w, 100*idle, sr.Clients.WaitShares, sr.SyncState)
			}
			checkStandbyData(&p, r)
			return p
		}},
}
