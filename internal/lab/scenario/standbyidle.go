package scenario

import (
	"time"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// standbyIdleFor is how long standby-idle's publisher writes nothing
// before the window: past a minute, where an alert on
// now() - pg_last_xact_replay_timestamp() fires.
const standbyIdleFor = 65 * time.Second

// standbyIdle: an idle publisher with a caught-up standby.
var standbyIdle = Scenario{
	Recipe: lab.Recipe{Name: "standby-idle", Summary: "the publisher's physical standby replays one update, then the publisher writes nothing for 65 s and through the window: nothing is left to replay while now() - pg_last_xact_replay_timestamp() passes a minute",
		Layout: lab.Flat,
		Steps:  []lab.Step{lab.WithStandby(lab.StandbyOptions{}), lab.IdleAfterWrite(standbyIdleFor)}},
	Physical: true,
	Expect: Expect{Verdict: model.CaughtUp,
		Check: func(r *lab.Result) []string {
			var p problems
			sr := standbyMeasured(&p, r)
			if sr == nil {
				return p
			}
			if sr.ReplayBacklogEnd > 64<<10 || sr.ReceiveBacklogEnd > 64<<10 {
				p.add("%d bytes not replayed, %d not received at the end; want the standby caught up", sr.ReplayBacklogEnd, sr.ReceiveBacklogEnd)
			}
			if sr.ReplayAgeS < 60 {
				p.add("now() - pg_last_xact_replay_timestamp() = %.0f s at the end; want over a minute", sr.ReplayAgeS)
			}
			return p
		}},
}
