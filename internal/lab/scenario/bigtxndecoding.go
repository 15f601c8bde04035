package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// bigTxnDecoding: the walsender decodes (and spills) one large
// transaction; nothing is sent before its commit.
var bigTxnDecoding = Scenario{
	Recipe: lab.Recipe{Name: "big-txn-decoding", Summary: "one transaction of about 3.6M row updates with streaming = off, measured from the moment the subscription starts: the walsender reads and decodes (and spills) it, nothing is sent before its commit (not drained: applying it takes a minute)",
		Layout: lab.Flat, Streaming: "off", Steps: []lab.Step{lab.BigTxn(lab.DecodingTxnChanges), lab.Enable}},
	Expect: Expect{Verdict: model.LargeTransaction, Recorded: "one transaction of 2.4M row updates with streaming = off, measured from when the subscription starts: the walsender decodes (and spills) it, the apply worker waits",
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
