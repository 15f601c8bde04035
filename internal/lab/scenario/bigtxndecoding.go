package scenario

import (
	"time"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// bigTxnDecoding: the walsender decodes (and spills) one large
// transaction; nothing is sent before its commit.
var bigTxnDecoding = Scenario{
	Recipe: lab.Recipe{Name: "big-txn-decoding", Summary: "one transaction of about 3.6M row updates with streaming = off, measured from the moment the subscription starts: the walsender reads and decodes (and spills) it, nothing is sent before its commit (not drained: applying it takes a minute)",
		Layout: lab.Flat, Streaming: "off", Steps: []lab.Step{lab.BigTxn(lab.DecodingTxnChanges), lab.Enable}},
	// Decoding 1.2 GB takes about 10.4 s at 18.4's 114 MB/s: a 10 s window
	// saw its end (confirmed_flush_lsn jumped at the last tick; CI at stop
	// 48, 1 run of 4 here), a 5 s one ends halfway.
	Expect: Expect{Window: 5 * time.Second, Verdict: model.LargeTransaction, Recorded: "one transaction of 2.4M row updates with streaming = off, measured from when the subscription starts: the walsender decodes (and spills) it, the apply worker waits",
		Check: func(r *lab.Result) []string {
			var p problems
			if d := r.Walsender.CPUShare + r.Walsender.RunqueueShare; d < 0.6 || r.Apply.Share("LogicalApplyMain") < 0.5 {
				p.add("walsender CPU + run queue %.2f, apply waiting for data %.0f%%: want the walsender busy decoding (>= 0.6) and the apply worker idle", d, 100*r.Apply.Share("LogicalApplyMain"))
			}
			checkData(&p, r)
			return p
		},
		Diagnosis: func(d Diagnosed) []string {
			return diagnosedTxn(d.Path, model.TxnDecoding, func(p *problems) {
				if d.Path.Limit != model.StageWalsender {
					p.add("limit %q, want the walsender", d.Path.Limit)
				}
			})
		}},
}
