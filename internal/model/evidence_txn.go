package model

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/units"
)

// txnLines state a large transaction in flight (basisTxn) by its phase:
// what the positions show of it, the WAL the slot holds back and what the
// walsender spilled of it; then what the stage model's verdict (d.inner)
// decided on when it names a limit (an open transaction has none), or else
// the walsender's and the apply worker's figures (st.Of(StageWalsender), st.Of(StageApply)): its lines
// would contradict the transaction's.
func txnLines(v Verdict, in Input, st Stages) []Evidence {
	lt, s := v.Txn, in.Summary
	held := item(EvTxnHeld, fmt.Sprintf("the slot holds %s of WAL back (restart_lsn): the publisher keeps it until the transaction is applied or rolled back", size(lt.HeldBytes)),
		Figures{"held_bytes": float64(lt.HeldBytes)})
	var spill Evidence
	if lt.SpilledBytes > 0 {
		spill = item(EvTxnSpilled, fmt.Sprintf("the walsender spilled %s of it to disk during the window (past logical_decoding_work_mem)", size(lt.SpilledBytes)),
			Figures{"spilled_bytes": float64(lt.SpilledBytes)})
	}
	var out []Evidence
	switch lt.Phase {
	case TxnSending:
		line := fmt.Sprintf("sent_lsn stood still for the whole window, %s past restart_lsn: the walsender is sending one transaction of up to that much WAL from its reorder buffer while it handles the commit record", size(lt.TxnBytes))
		figs := Figures{"txn_bytes": float64(lt.TxnBytes)}
		if rate, ok := lt.SubWALRate.Get(); ok && rate > 0 {
			line += fmt.Sprintf("; the subscriber wrote %s of its own WAL meanwhile (applying it)", units.FormatRate(rate))
			figs["sub_wal_bytes_per_s"] = rate
		}
		out = append(out, item(EvTxnSending, line, figs),
			item(EvTxnUnconfirmed, fmt.Sprintf("the slot's unconfirmed WAL (%s) says little here: nothing of the transaction is confirmed before its commit is applied, and a keepalive may have moved confirmed_flush_lsn past it", size(s.Lag.Total)),
				Figures{"unconfirmed_bytes": float64(s.Lag.Total)}),
			held, spill)
	case TxnDecoding:
		consumer := "the consumer received and confirmed nothing"
		if lt.KeepaliveBytes > 0 {
			consumer = fmt.Sprintf("the consumer confirmed only what the walsender's keepalives carried (%s further: the position read, not data applied)", size(lt.KeepaliveBytes))
		}
		out = append(out,
			item(EvTxnDecoding, fmt.Sprintf("the walsender read %s of WAL during the window (sent_lsn) while %s, and no transaction finished decoding (pg_stat_replication_slots.total_txns)", size(lt.DecodedBytes), consumer),
				Figures{"decoded_bytes": float64(lt.DecodedBytes), "keepalive_confirmed_bytes": float64(lt.KeepaliveBytes)}),
			held, spill)
	case TxnOpen:
		x := lt.Xact
		out = append(out,
			item(EvTxnOpen, fmt.Sprintf("pid %d (application_name %q, user %q, %s) has held a writing transaction open for %s (xid age %d): %q", x.PID, x.AppName, x.User, x.State, secs(x.AgeS), x.XIDAge, x.Query),
				Figures{"pid": float64(x.PID), "age_s": x.AgeS, "xid_age": float64(x.XIDAge)}),
			held,
			item(EvTxnKeepalive, fmt.Sprintf("confirmed_flush_lsn is %s behind: keepalives move it past the open transaction, so the path looks caught up", size(s.Lag.Total)),
				Figures{"unconfirmed_bytes": float64(s.Lag.Total)}),
			spill,
			said(EvTxnWhole, "when it commits, the subscriber receives it whole (streaming = off): expect a lag of about its size then"))
	}
	if inner := v.d.inner; inner.Limit != "" && lt.Phase != TxnOpen {
		return append(out, verdictLines(*inner, in, st)...)
	}
	return append(out, walsenderLine(st.Of(StageWalsender)), applyLine(st.Of(StageApply)))
}
