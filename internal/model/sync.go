package model

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/quote"
)

// copyState is what a tablesync slot's rule saw of its table's initial
// copy (basisCopy).
type copyState int

const (
	copyMoving   copyState = iota // the COPY advanced during the window
	copyStill                     // the COPY did not advance
	copyOneTick                   // the COPY was seen at one tick only
	copyUnseen                    // no COPY in pg_stat_progress_copy
	copyFailed                    // sync_error_count rose: the copy failed
	copyNameOnly                  // no subscriber observed: the slot's name only
	copyLeftover                  // its subscription observed, no copy under way for the slot
	copyUnowned                   // its subscription not among those read
)

// syncVerdict describes a tablesync slot: the initial copy of one table.
func syncVerdict(in Input) Verdict {
	s := in.Sync
	if in.SyncErrors > 0 {
		v := newVerdict(Stalled, fixed(confSyncFailed))
		v.d.basis, v.d.copy = basisCopy, copyFailed
		v.d.cause = fmt.Sprintf("the initial copy of %s for subscription %s failed %d time(s): read the subscriber's log for the error", syncTable(s), in.Subscription, in.SyncErrors)
		return v
	}
	if !in.HasSubscriber {
		v := newVerdict(InitialSync, fixed(confSyncNameOnly))
		v.d.basis, v.d.copy = basisCopy, copyNameOnly
		v.Caveats = append(v.Caveats, "judged from the slot's name only: add --subscriber to see the copy's progress; a slot left behind by a dropped subscription or a finished copy looks the same and holds WAL")
		return v
	}
	if in.Subscription == "" {
		// The subscription the slot's name gives is not among those read
		// (another database or subscriber, a dropped one, or 13, where a
		// subscription without a worker shows no oid): nothing says the
		// slot is left over, and nothing is dropped on a guess.
		v := newVerdict(Stalled, fixed(confSyncUnowned))
		v.d.basis, v.d.copy = basisCopy, copyUnowned
		v.d.cause = fmt.Sprintf("a tablesync slot whose subscription (oid %d) is not among the subscriptions read on the observed subscriber's database: it may belong to a subscription in another database or on another subscriber, or be left behind by a dropped one; lagscope cannot tell which, so it offers no drop", s.SubOID)
		v.d.fill = FillUnowned
		return v
	}
	if in.NotReady == 0 || (s.Workers == 0 && s.Table == "") {
		// Its subscription is observed and shows no copy under way for
		// this slot: a tablesync slot that outlived its copy keeps WAL
		// from being removed.
		v := newVerdict(Stalled, fixed(confSyncLeftover))
		v.d.basis, v.d.copy = basisCopy, copyLeftover
		v.d.cause = fmt.Sprintf("a leftover tablesync slot: its subscription %s is observed and shows no copy in progress for it, and the slot holds WAL back", quote.Id(in.Subscription))
		v.d.fill = FillLeftover
		return v
	}
	state, conf := copyMoving, confCopyMoving
	switch {
	case s.Rate > 0:
	case s.Rate == 0:
		state, conf = copyStill, confCopyStill
	case s.Table != "":
		state, conf = copyOneTick, confCopyUnseen
	default:
		state, conf = copyUnseen, confCopyUnseen
	}
	v := newVerdict(InitialSync, fixed(conf))
	v.d.basis, v.d.copy = basisCopy, state
	return v
}

// syncTable names a tablesync slot's table (its relid when its COPY was
// not seen).
func syncTable(s *measure.Tablesync) string {
	if s.Table != "" {
		return s.Table
	}
	return fmt.Sprintf("relid %d", s.RelID)
}
