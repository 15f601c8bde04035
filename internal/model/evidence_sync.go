package model

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/units"
)

// copyLines state what a tablesync slot's rule saw of its table's copy
// (basisCopy, d.copy): a failed copy, a slot known by its name only or
// left behind, or the copy's progress, its subscription's tables not yet
// ready and why the slot is inactive.
func copyLines(d diagnosis, in Input) []Evidence {
	s, table := in.Sync, syncTable(in.Sync)
	oid := Figures{"sub_oid": float64(s.SubOID)}
	var out []Evidence
	switch d.copy {
	case copyFailed:
		return []Evidence{item(EvCopyFailed, fmt.Sprintf("sync_error_count of %s rose by %d during the window", in.Subscription, in.SyncErrors), Figures{"sync_errors": float64(in.SyncErrors)})}
	case copyNameOnly:
		return []Evidence{item(EvSyncSlotNameOnly, fmt.Sprintf("the slot's name says it belongs to a tablesync worker of the subscription with oid %d, copying %s; it is inactive during the COPY", s.SubOID, table), oid)}
	case copyUnowned:
		return []Evidence{item(EvSyncSlotUnowned, fmt.Sprintf("the slot's name says it belongs to a tablesync worker of the subscription with oid %d (%s), which is not among the subscriptions read on the observed subscriber", s.SubOID, table), oid)}
	case copyLeftover:
		return []Evidence{item(EvSyncSlotLeftover, fmt.Sprintf("the slot's name says it belongs to a tablesync worker (subscription oid %d, %s), but no copy of that table is under way", s.SubOID, table), oid)}
	case copyMoving:
		line := fmt.Sprintf("%s: copied %s at %s", table, size(s.Bytes), units.FormatRate(s.Rate))
		figs := Figures{"copied_bytes": float64(s.Bytes), "bytes_per_s": s.Rate}
		if s.BytesTotal > 0 {
			share := float64(s.Bytes) / float64(s.BytesTotal)
			line = fmt.Sprintf("%s: copied %s of %s (%s) at %s", table, size(s.Bytes), size(s.BytesTotal), pct(share), units.FormatRate(s.Rate))
			figs["total_bytes"], figs["copied_share"] = float64(s.BytesTotal), share
			if left := float64(s.BytesTotal-s.Bytes) / s.Rate; left > 0 {
				line += fmt.Sprintf(", about %s left", secs(left))
				figs["left_s"] = left
			}
		}
		out = append(out, item(EvCopyProgress, line, figs))
	case copyStill:
		out = append(out, item(EvCopyStill, fmt.Sprintf("%s: the COPY did not advance during the window (%s copied): look for a lock on the table or a stuck link", table, size(s.Bytes)), Figures{"copied_bytes": float64(s.Bytes)}))
	case copyOneTick:
		out = append(out, item(EvCopyOneTick, fmt.Sprintf("%s: the COPY was seen at one tick only (%s copied)", table, size(s.Bytes)), Figures{"copied_bytes": float64(s.Bytes)}))
	case copyUnseen:
		out = append(out, said(EvCopyUnseen, fmt.Sprintf("the COPY of %s was not seen in pg_stat_progress_copy: the copy is done and the worker catches up to the apply worker, or the server is older than 14", table)))
	}
	out = append(out, item(EvSyncTables, fmt.Sprintf("subscription %s has %d table(s) not yet ready and %d tablesync worker(s)", in.Subscription, in.NotReady, s.Workers),
		Figures{"tables": float64(in.NotReady), "workers": float64(s.Workers)}))
	if !in.SlotActive {
		out = append(out, said(EvSyncSlotInactive, "the tablesync slot is inactive during the COPY (its snapshot serves the copy): that is expected, not a stop"))
	}
	return out
}
