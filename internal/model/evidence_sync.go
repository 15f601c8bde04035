package model

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/units"
)

// copyLines state what a tablesync slot's rule saw of its table's copy
// (basisCopy, d.copy): a failed copy, a slot known by its name only or
// left behind, or the copy's progress, its subscription's tables not yet
// ready and why the slot is inactive.
func copyLines(d diagnosis, in Input) []string {
	s, table := in.Sync, syncTable(in.Sync)
	var out []string
	switch d.copy {
	case copyFailed:
		return []string{fmt.Sprintf("sync_error_count of %s rose by %d during the window", in.Subscription, in.SyncErrors)}
	case copyNameOnly:
		return []string{fmt.Sprintf("the slot's name says it belongs to a tablesync worker of the subscription with oid %d, copying %s; it is inactive during the COPY", s.SubOID, table)}
	case copyUnowned:
		return []string{fmt.Sprintf("the slot's name says it belongs to a tablesync worker of the subscription with oid %d (%s), which is not among the subscriptions read on the observed subscriber", s.SubOID, table)}
	case copyLeftover:
		return []string{fmt.Sprintf("the slot's name says it belongs to a tablesync worker (subscription oid %d, %s), but no copy of that table is under way", s.SubOID, table)}
	case copyMoving:
		line := fmt.Sprintf("%s: copied %s at %s", table, size(s.Bytes), units.FormatRate(s.Rate))
		if s.BytesTotal > 0 {
			line = fmt.Sprintf("%s: copied %s of %s (%s) at %s", table, size(s.Bytes), size(s.BytesTotal), pct(float64(s.Bytes)/float64(s.BytesTotal)), units.FormatRate(s.Rate))
			if left := float64(s.BytesTotal-s.Bytes) / s.Rate; left > 0 {
				line += fmt.Sprintf(", about %s left", secs(left))
			}
		}
		out = append(out, line)
	case copyStill:
		out = append(out, fmt.Sprintf("%s: the COPY did not advance during the window (%s copied): look for a lock on the table or a stuck link", table, size(s.Bytes)))
	case copyOneTick:
		out = append(out, fmt.Sprintf("%s: the COPY was seen at one tick only (%s copied)", table, size(s.Bytes)))
	case copyUnseen:
		out = append(out, fmt.Sprintf("the COPY of %s was not seen in pg_stat_progress_copy: the copy is done and the worker catches up to the apply worker, or the server is older than 14", table))
	}
	out = append(out, fmt.Sprintf("subscription %s has %d table(s) not yet ready and %d tablesync worker(s)", in.Subscription, in.NotReady, s.Workers))
	if !in.SlotActive {
		out = append(out, "the tablesync slot is inactive during the COPY (its snapshot serves the copy): that is expected, not a stop")
	}
	return out
}
