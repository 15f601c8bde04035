package model

import (
	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/sample"
)

// Phases of a large transaction on a path that does not stream it
// (streaming = off, the default before 18).
const (
	// TxnOpen: still open on the publisher. The walsender decodes (and
	// spills) its changes as they are written; nothing of it can be sent
	// before its commit, and keepalives move confirmed_flush_lsn past it,
	// so the slot looks caught up while restart_lsn holds its WAL.
	TxnOpen = "open"
	// TxnDecoding: committed, the walsender reads and decodes its WAL;
	// nothing of it is sent until the walsender reaches its commit record.
	TxnDecoding = "decoding"
	// TxnSending: the walsender sends it whole while it handles the
	// commit record: sent_lsn stands still while the subscriber receives
	// and applies it.
	TxnSending = "sending"
)

// TxnHeldWAL is the WAL a slot must hold back (restart_lsn behind what
// the walsender has read or what was written) for a transaction to count as
// large: four times what a caught-up path may hold unconfirmed.
const TxnHeldWAL = 4 * CaughtUpLag

// LargeTxn is a large transaction in flight on a path, as the slot, its
// walsender and the servers' WAL positions show it. The subscriber's
// received_lsn tells nothing here: a keepalive may have carried it past the
// whole transaction before its first change was sent.
type LargeTxn struct {
	Phase string `json:"phase"`
	// HeldBytes is the WAL the slot holds back (current - restart_lsn at
	// the window's end).
	HeldBytes int64 `json:"held_wal_bytes"`
	// TxnBytes is at most the transaction's WAL: sent_lsn - restart_lsn
	// (sending, decoding).
	TxnBytes int64 `json:"txn_wal_bytes,omitempty"`
	// SpilledBytes is what the walsender spilled to disk during the window.
	SpilledBytes int64 `json:"spilled_bytes"`
	// SubWALRate is the subscriber's own WAL rate (bytes/s) while sending:
	// what applying the transaction writes; not measured (null) when the
	// subscriber's WAL positions were not read.
	SubWALRate Optional[float64] `json:"sub_wal_bytes_per_s"`
	// DecodedBytes is how far the walsender read during the window
	// (decoding).
	DecodedBytes int64 `json:"decoded_bytes,omitempty"`
	// KeepaliveBytes is how far confirmed_flush_lsn moved while decoding:
	// the consumer confirming the positions the walsender's keepalives
	// carried, since no transaction was sent (0: it confirmed nothing).
	KeepaliveBytes int64 `json:"keepalive_confirmed_bytes,omitempty"`
	// Xact is the publisher's oldest writing transaction at the window's
	// end (open; nil when none was seen).
	Xact *sample.OpenXact `json:"open_xact,omitempty"`
}

// largeTxn recognises a large transaction in flight from the slot at the
// window's ends (first, last: nil when never seen), the window's length in
// seconds and whether the walsender mostly waited for WAL; nil when there is
// none.
func largeTxn(first, last *measure.SlotEnd, windowS float64, waitsForWAL bool) *LargeTxn {
	if first == nil || last == nil || windowS <= 0 || last.RestartLSN == 0 {
		return nil
	}
	lt := &LargeTxn{
		HeldBytes:    last.CurrentLSN.Sub(last.RestartLSN),
		SpilledBytes: last.SpillBytes - first.SpillBytes,
	}
	held := last.RestartLSN == first.RestartLSN
	confirmedLag := last.CurrentLSN.Sub(last.ConfirmedFlush)
	switch {
	case !held || lt.HeldBytes < TxnHeldWAL:
		return nil
	case first.Sent != 0 && first.Sent == last.Sent && !waitsForWAL && last.Sent.Sub(last.RestartLSN) >= TxnHeldWAL:
		// Sending: the walsender works (it does not wait for WAL) but
		// reads no further, far past what the slot can release.
		lt.Phase, lt.TxnBytes = TxnSending, last.Sent.Sub(last.RestartLSN)
		if first.SubLSN != 0 && last.SubLSN >= first.SubLSN {
			lt.SubWALRate = Known(float64(last.SubLSN-first.SubLSN) / windowS)
		}
		return lt
	case decodingOne(first, last, lt.SpilledBytes) && last.ConfirmedFlush == first.ConfirmedFlush:
		// Decoding: the walsender read on while no transaction finished
		// decoding and the consumer confirmed nothing.
		return decoding(lt, first, last)
	case len(last.Xacts) > 0 && lt.HeldBytes >= 2*confirmedLag && last.Xacts[0].AgeS >= windowS:
		// Open: a writing transaction older than the window is open
		// while the slot has confirmed far past its restart_lsn.
		x := last.Xacts[0]
		lt.Phase, lt.Xact = TxnOpen, &x
		return lt
	case decodingOne(first, last, lt.SpilledBytes) && last.StreamBytes == first.StreamBytes:
		// Decoding, with no transaction open: what the consumer confirmed
		// came from the walsender's keepalives, which carry how far it
		// has read (no transaction was sent: total_txns stood still; nor
		// streamed: a streamed one's changes move confirmed as applied).
		// 18.4's big-txn-decoding: confirmed_flush_lsn jumped to the
		// transaction's last change in the tick its decoding ended.
		return decoding(lt, first, last)
	}
	return nil
}

// decodingOne reports whether the walsender read on between first and last
// while no transaction finished decoding (total_txns stood still), with the
// slot's statistics there to say so (a spill, or transactions counted).
func decodingOne(first, last *measure.SlotEnd, spilled int64) bool {
	return first.Sent != 0 && last.Sent > first.Sent && last.TotalTxns == first.TotalTxns && (spilled > 0 || last.TotalTxns > 0)
}

// decoding fills lt for the decoding phase.
func decoding(lt *LargeTxn, first, last *measure.SlotEnd) *LargeTxn {
	lt.Phase, lt.DecodedBytes = TxnDecoding, last.Sent.Sub(first.Sent)
	lt.TxnBytes = last.Sent.Sub(last.RestartLSN)
	lt.KeepaliveBytes = last.ConfirmedFlush.Sub(first.ConfirmedFlush)
	return lt
}

// largeTxnVerdict turns the stage model's verdict v into the large
// transaction's: the phase decides the headline and what helps (see
// variants), the limit and the stage evidence stay (txnLines).
func largeTxnVerdict(in Input, v Verdict) Verdict {
	lt := in.Txn
	out := newVerdict(LargeTransaction, score{v.Confidence, v.Decided})
	out.Txn, out.Limit, out.Blockers = lt, txnLimit(lt.Phase, v.Limit, in.HasSubscriber), v.Blockers
	inner := withTexts(v, nil, nil)
	out.d.basis, out.d.inner = basisTxn, &inner
	if lt.Phase == TxnOpen {
		out.setScore(confidence(margin{"WAL held over TxnHeldWAL", float64(lt.HeldBytes-TxnHeldWAL) / float64(TxnHeldWAL)}, margin{"transaction older than the window", (lt.Xact.AgeS - in.Summary.WindowS) / in.Summary.WindowS}))
	}
	out.Caveats = v.Caveats
	if out.Confidence < floorLargeTxn {
		out.Confidence = floorLargeTxn
	}
	return out
}

// txnLimit is the stage a large transaction in phase limits, given the
// stage model's limit (inner, "" when it names none): while the transaction
// is open, none (nothing can be sent before its commit); otherwise the stage
// model's, or the stage the phase is in (decoding: the walsender; sending:
// the apply worker, when the subscriber is observed).
func txnLimit(phase string, inner StageName, hasSubscriber bool) StageName {
	switch {
	case phase == TxnOpen:
		return ""
	case inner != "":
		return inner
	case phase == TxnDecoding:
		return StageWalsender
	case phase == TxnSending && hasSubscriber:
		return StageApply
	}
	return ""
}
