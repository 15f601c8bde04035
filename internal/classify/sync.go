package classify

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/measure"
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
	copyLeftover                  // no copy under way for the slot
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
	if in.Subscription == "" || in.NotReady == 0 || (s.Workers == 0 && s.Table == "") {
		// No copy under way for this slot: a tablesync slot that outlived
		// its copy or its subscription keeps WAL from being removed.
		v := newVerdict(Stalled, fixed(confSyncLeftover))
		v.d.basis, v.d.copy = basisCopy, copyLeftover
		v.d.cause = fmt.Sprintf("a tablesync slot with no copy in progress: it holds WAL back; if its subscription is gone or its tables are ready, drop it on the publisher: SELECT pg_drop_replication_slot('%s')", in.Slot)
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
