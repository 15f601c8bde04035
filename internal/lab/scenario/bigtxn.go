package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
)

// bigTxn: one large transaction sent whole at its commit.
var bigTxn = Scenario{
	Recipe: lab.Recipe{Name: "big-txn", Summary: "one large transaction (about 1.2M row updates) with streaming = off: the walsender sends it whole at its commit (sent_lsn stands still) while the apply worker applies it",
		Layout: lab.Flat, SubIndexes: 3, Streaming: "off",
		// Sent whole at its commit: measured once the apply side has it, for
		// the whole window (a keepalive can carry the slot past it: it looks
		// drained from the start).
		Steps:  []lab.Step{lab.BigTxn(lab.BigTxnChanges), lab.Enable, lab.WaitReceived},
		Drains: true},
	Expect: Expect{Verdict: model.LargeTransaction, Recorded: "one transaction of 1.2M row updates with streaming = off, 3 extra subscriber indexes, measured once the subscriber received its first message: the walsender sends it whole at its commit (sent_lsn still) while the apply worker applies it",
		Check: func(r *lab.Result) []string {
			var p problems
			// The walsender sends one transaction while it handles the
			// commit record: its sent_lsn stands still.
			moved := ticksWhere(r, func(tk sample.Tick) bool {
				return len(tk.Read(sample.PublisherNode).Senders) > 0 && len(r.Recording.Ticks) > 0 && len(r.Recording.Ticks[0].Read(sample.PublisherNode).Senders) > 0 &&
					tk.Read(sample.PublisherNode).Senders[0].Sent != r.Recording.Ticks[0].Read(sample.PublisherNode).Senders[0].Sent
			})
			if moved > 0 {
				p.add("sent_lsn moved at %d ticks, want it still while the transaction is sent", moved)
			}
			if d := r.Apply.CPUShare + r.Apply.RunqueueShare; d < 0.6 {
				p.add("apply cpu_share %.2f + runqueue_share %.2f = %.2f, want >= 0.6: applying the transaction", r.Apply.CPUShare, r.Apply.RunqueueShare, d)
			}
			checkData(&p, r)
			return p
		},
		Diagnosis: func(d Diagnosed) []string {
			return diagnosedTxn(d.Path, model.TxnSending, func(p *problems) {
				if d.Path.Limit != model.StageApply && !readingSpillLimits(d.Path) {
					p.add("limit %q, want the apply worker (or the walsender reading the spilled transaction back while the apply worker waits for it)", d.Path.Limit)
				}
			})
		}},
}

// readingSpillLimits says whether the walsender limited a large
// transaction's sending by reading its spilled part back from disk: its
// ReorderBufferRead waits 15% of the window or more while the apply worker
// waited for data 10% or more. The lab spills big-txn's transaction (64 kB
// of logical_decoding_work_mem); on 18.4, late in a full make test, one run
// of nine read it back that slowly (ReorderBufferRead 22%, the apply worker
// waiting 16%, 84% busy) where eight alone did not (apply 95-100% busy).
func readingSpillLimits(p report.Path) bool {
	if p.Limit != model.StageWalsender {
		return false
	}
	for _, st := range p.Stages {
		if st.Name == model.StageApply {
			return p.Walsender.WaitShares["ReorderBufferRead"] >= 0.15 && st.Starved >= 0.1
		}
	}
	return false
}
