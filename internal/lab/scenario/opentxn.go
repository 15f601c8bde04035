package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/sample"
)

// openTxn: a publisher session holds a large transaction open; the slot
// looks caught up while restart_lsn holds its WAL.
var openTxn = Scenario{
	Recipe: lab.Recipe{Name: "open-txn", Summary: "a publisher session (lab-open-txn) holds a transaction of about 600k row updates open (streaming = off): the walsender decoded and spilled it, the slot looks caught up while restart_lsn holds its WAL",
		Layout: lab.Flat, Streaming: "off",
		// The slot confirms all it was sent: it looks drained from the start.
		Steps:  []lab.Step{lab.Enable, lab.HoldOpenTxn},
		Drains: true},
	Expect: Expect{Verdict: model.LargeTransaction, Recorded: "a publisher session (lab-open-txn) holds 600k row updates open in one transaction (streaming = off): decoded and spilled, restart_lsn ~200 MB behind, nothing unconfirmed",
		Check: func(r *lab.Result) []string {
			var p problems
			var last sample.Read
			for _, tk := range r.Recording.Ticks {
				if pub := tk.Read(sample.PublisherNode); pub.OK && len(pub.Slots) > 0 {
					last = pub
				}
			}
			if len(last.Slots) == 0 || int64(last.CurrentLSN)-int64(last.Slots[0].RestartLSN) < 64<<20 || last.Slots[0].SpillBytes == 0 {
				p.add("slots %+v at current %d: want restart_lsn 64 MB+ behind and spilled bytes", last.Slots, last.CurrentLSN)
			}
			checkData(&p, r)
			return p
		},
		Diagnosis: func(d Diagnosed) []string {
			return diagnosedTxn(d.Path, model.TxnOpen, func(p *problems) {
				if d.Path.Txn.Xact == nil || d.Path.Txn.Xact.AppName != lab.OpenTxnApp {
					p.add("open transaction %+v, want the session %s", d.Path.Txn.Xact, lab.OpenTxnApp)
				}
			})
		}},
}
