package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// replayPaused: the standby's replay is paused while the publisher writes.
var replayPaused = Scenario{
	Recipe: lab.Recipe{Name: "replay-paused", Summary: "the publisher's physical standby has its replay paused (pg_wal_replay_pause) while the 16-client load runs: it receives everything, replays nothing, and the backlog grows",
		Layout: lab.Flat,
		Steps:  []lab.Step{lab.WithStandby(lab.StandbyOptions{}), lab.PauseReplay, lab.FullLoad},
		Drains: true},
	Physical: true,
	Expect: Expect{Verdict: model.ReplayPaused,
		Check: func(r *lab.Result) []string {
			var p problems
			sr := standbyMeasured(&p, r)
			if sr == nil {
				return p
			}
			if sr.PausedShare < 1 || sr.Startup.Share("RecoveryPause") < 0.9 || sr.ReplayedMBps > 0 {
				p.add("paused in %.0f%% of ticks, the startup process waited on RecoveryPause in %.0f%% of its probes (%v), replayed %.2f MB/s; want 100%%, >= 90%% and nothing",
					100*sr.PausedShare, 100*sr.Startup.Share("RecoveryPause"), sr.Startup.WaitShares, sr.ReplayedMBps)
			}
			checkReplayBehindAndGrowing(&p, sr)
			checkStandbyData(&p, r)
			return p
		}},
}
