package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/sample"
)

// initialSync: a tablesync worker copies the table through the link.
var initialSync = Scenario{
	Recipe: lab.Recipe{Name: "initial-sync", Summary: "the subscriber's table starts empty and the subscription copies it (copy_data = true) through the link: use a --rate that makes the copy outlast the window (1M rows are ~140 MB)",
		Layout: lab.Flat, Link: true, InitialSync: true, Steps: []lab.Step{lab.Enable},
		UntilBelow: lab.DrainedMB, Drains: true},
	Expect: Expect{Verdict: model.InitialSync, EveryVersion: "the tablesync worker is told apart in pg_stat_subscription by relid before 16, leader_pid on 16, worker_type from 17", Recorded: "the subscriber's table starts empty and the subscription copies it (copy_data = true) through a 500 kB/s link",
		// 500 kB/s: the 100k rows (~14 MB) take ~30 s to copy, longer than
		// diagnose's 10 s window.
		LinkRate: 500_000,
		Check: func(r *lab.Result) []string {
			var p problems
			copying := ticksWhere(r, func(tk sample.Tick) bool { return len(tk.Read(sample.SubscriberNode).Copies) > 0 })
			if copying < 3 {
				p.add("pg_stat_progress_copy showed the tablesync COPY at %d ticks, want >= 3", copying)
			}
			checkData(&p, r)
			return p
		}},
}
