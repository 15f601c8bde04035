package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// replayDelayed: the standby replays each commit recovery_min_apply_delay
// after the publisher made it.
var replayDelayed = Scenario{
	Recipe: lab.Recipe{Name: "replay-delayed", Summary: "the publisher's physical standby has recovery_min_apply_delay = 5min while the 16-client load runs: it receives everything and waits to replay the first commit, and the backlog grows",
		Layout: lab.Flat,
		Steps:  []lab.Step{lab.WithStandby(lab.StandbyOptions{RecoveryMinApplyDelay: "5min"}), lab.FullLoad}},
	Physical: true,
	Expect: Expect{Verdict: model.ReplayDelayed,
		Check: func(r *lab.Result) []string {
			var p problems
			sr := standbyMeasured(&p, r)
			if sr == nil {
				return p
			}
			if w := sr.Startup.Share("RecoveryApplyDelay"); w < 0.9 || sr.PausedShare > 0 {
				p.add("the startup process waited on RecoveryApplyDelay in %.0f%% of its probes (%v), paused in %.0f%% of ticks; want >= 90%% and never paused",
					100*w, sr.Startup.WaitShares, 100*sr.PausedShare)
			}
			checkReplayBehindAndGrowing(&p, sr)
			return p
		}},
}
