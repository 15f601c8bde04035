package classify

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/units"
)

// syncVerdict describes a tablesync slot: the initial copy of one table.
func syncVerdict(in Input) Verdict {
	s := in.Sync
	table := fmt.Sprintf("relid %d", s.RelID)
	if s.Table != "" {
		table = s.Table
	}
	if in.SyncErrors > 0 {
		v := newVerdict(Stalled, fixed(confSyncFailed), fmt.Sprintf("sync_error_count of %s rose by %d during the window", in.Subscription, in.SyncErrors))
		v.d.cause = fmt.Sprintf("the initial copy of %s for subscription %s failed %d time(s): read the subscriber's log for the error", table, in.Subscription, in.SyncErrors)
		return v
	}
	if !in.HasSubscriber {
		v := newVerdict(InitialSync, fixed(confSyncNameOnly),
			fmt.Sprintf("the slot's name says it belongs to a tablesync worker of the subscription with oid %d, copying %s; it is inactive during the COPY", s.SubOID, table))
		v.Caveats = append(v.Caveats, "judged from the slot's name only: add --subscriber to see the copy's progress; a slot left behind by a dropped subscription or a finished copy looks the same and holds WAL")
		return v
	}
	if in.Subscription == "" || in.NotReady == 0 || (s.Workers == 0 && s.Table == "") {
		// No copy under way for this slot: a tablesync slot that outlived
		// its copy or its subscription keeps WAL from being removed.
		v := newVerdict(Stalled, fixed(confSyncLeftover),
			fmt.Sprintf("the slot's name says it belongs to a tablesync worker (subscription oid %d, %s), but no copy of that table is under way", s.SubOID, table))
		v.d.cause = fmt.Sprintf("a tablesync slot with no copy in progress: it holds WAL back; if its subscription is gone or its tables are ready, drop it on the publisher: SELECT pg_drop_replication_slot('%s')", in.Slot)
		v.d.fill = FillLeftover
		return v
	}
	conf := confCopyMoving
	var ev []string
	switch {
	case s.Rate > 0:
		line := fmt.Sprintf("%s: copied %s at %s", table, size(s.Bytes), units.FormatRate(s.Rate))
		if s.BytesTotal > 0 {
			line = fmt.Sprintf("%s: copied %s of %s (%s) at %s", table, size(s.Bytes), size(s.BytesTotal), pct(float64(s.Bytes)/float64(s.BytesTotal)), units.FormatRate(s.Rate))
			if left := float64(s.BytesTotal-s.Bytes) / s.Rate; left > 0 {
				line += fmt.Sprintf(", about %s left", secs(left))
			}
		}
		ev = append(ev, line)
	case s.Rate == 0:
		conf = confCopyStill
		ev = append(ev, fmt.Sprintf("%s: the COPY did not advance during the window (%s copied): look for a lock on the table or a stuck link", table, size(s.Bytes)))
	case s.Table != "":
		conf = confCopyUnseen
		ev = append(ev, fmt.Sprintf("%s: the COPY was seen at one tick only (%s copied)", table, size(s.Bytes)))
	default:
		conf = confCopyUnseen
		ev = append(ev, fmt.Sprintf("the COPY of %s was not seen in pg_stat_progress_copy: the copy is done and the worker catches up to the apply worker, or the server is older than 14", table))
	}
	ev = append(ev, fmt.Sprintf("subscription %s has %d table(s) not yet ready and %d tablesync worker(s)", in.Subscription, in.NotReady, s.Workers))
	if !in.SlotActive {
		ev = append(ev, "the tablesync slot is inactive during the COPY (its snapshot serves the copy): that is expected, not a stop")
	}
	v := newVerdict(InitialSync, fixed(conf), ev...)
	return v
}
