package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/sample"
)

// parallelApply: a parallel apply worker applies one large streamed
// transaction.
var parallelApply = Scenario{
	Recipe: lab.Recipe{Name: "parallel-apply", Summary: "one large transaction (about 1.2M row updates) streamed to a parallel apply worker (streaming = parallel, PostgreSQL 16+): the parallel worker applies on a full core while the leader waits on it",
		Layout: lab.Flat, SubIndexes: 3, Streaming: "parallel", MinMajor: 16, Needs: "streaming = parallel",
		// Stream the transaction from its first 64 kB instead of 64 MB, so
		// the parallel worker starts applying at once.
		PubSettings: map[string]string{"logical_decoding_work_mem": "64kB"},
		Steps:       []lab.Step{lab.BigTxn(lab.BigTxnChanges), lab.Enable},
		UntilBelow:  lab.DrainedMB, Drains: true},
	Expect: Expect{Verdict: model.SubscriberApplyCPU, Recorded: "one transaction of 1.2M row updates streamed to a parallel apply worker (streaming = parallel, 16+), 3 extra subscriber indexes: the parallel worker applies on a full core",
		Check: func(r *lab.Result) []string {
			var p problems
			withWorker := ticksWhere(r, func(tk sample.Tick) bool {
				return len(tk.Read(sample.SubscriberNode).Subs) > 0 && len(tk.Read(sample.SubscriberNode).Subs[0].ParallelWorkers) > 0
			})
			if withWorker < 3 {
				p.add("a parallel apply worker ran at %d ticks, want >= 3", withWorker)
			}
			checkData(&p, r)
			return p
		},
		Diagnosis: func(d Diagnosed) []string {
			var p problems
			if d.Path.Limit != model.StageParallel {
				p.add("limit %q, want the parallel apply worker", d.Path.Limit)
			}
			return p
		}},
}
