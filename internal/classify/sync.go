package classify

import (
	"github.com/lagscope/lagscope/internal/units"

	"fmt"
	"regexp"
	"strconv"

	"github.com/lagscope/lagscope/internal/sample"
)

// tablesyncRE matches the slot a tablesync worker creates for the initial
// copy of one table: pg_<subscription oid>_sync_<relid>_<system id>.
var tablesyncRE = regexp.MustCompile(`^pg_(\d+)_sync_(\d+)_\d+$`)

// tablesyncSlot parses a tablesync slot's name.
func tablesyncSlot(name string) (subOID, relID int64, ok bool) {
	m := tablesyncRE.FindStringSubmatch(name)
	if m == nil {
		return 0, 0, false
	}
	subOID, err1 := strconv.ParseInt(m[1], 10, 64)
	relID, err2 := strconv.ParseInt(m[2], 10, 64)
	return subOID, relID, err1 == nil && err2 == nil
}

// Sync is the initial copy of one table by a tablesync worker.
type Sync struct {
	SubOID, RelID int64
	// Table is the table's name on the subscriber ("" when its COPY was not
	// seen: PostgreSQL 13, or the copy is done and the worker catches up).
	Table string
	// Bytes and BytesTotal are the COPY's progress at the window's end;
	// Rate is its advance over the window, bytes/s (-1 when not seen twice).
	Bytes, BytesTotal int64
	Rate              float64
	// Workers is the number of tablesync workers of the subscription.
	Workers int
}

// fill reads the table's COPY progress from the recording.
func (s *Sync) fill(rec *sample.Recording) {
	s.Rate = -1
	var first, last *sample.CopyProgress
	var t0, t1 float64
	for i := range rec.Ticks {
		t := &rec.Ticks[i]
		for j := range t.Copies {
			c := &t.Copies[j]
			if c.RelID != s.RelID {
				continue
			}
			if first == nil {
				first, t0 = c, float64(t.At.UnixNano())/1e9
			}
			last, t1 = c, float64(t.At.UnixNano())/1e9
		}
		for _, sub := range t.Subs {
			if sub.OID == s.SubOID {
				s.Workers = len(sub.SyncWorkers)
			}
		}
	}
	if last == nil {
		return
	}
	s.Table, s.Bytes, s.BytesTotal = last.Table, last.Bytes, last.BytesTotal
	if t1 > t0 {
		s.Rate = float64(last.Bytes-first.Bytes) / (t1 - t0)
	}
}

// syncVerdict describes a tablesync slot: the initial copy of one table.
func syncVerdict(in Input) Verdict {
	s := in.Sync
	table := fmt.Sprintf("relid %d", s.RelID)
	if s.Table != "" {
		table = s.Table
	}
	if in.SyncErrors > 0 {
		v := newVerdict(Stalled, fixed(confSyncFailed), fmt.Sprintf("sync_error_count of %s rose by %d during the window", in.Subscription, in.SyncErrors))
		v.Cause = fmt.Sprintf("the initial copy of %s for subscription %s failed %d time(s): read the subscriber's log for the error", table, in.Subscription, in.SyncErrors)
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
		v.Cause = fmt.Sprintf("a tablesync slot with no copy in progress: it holds WAL back; if its subscription is gone or its tables are ready, drop it on the publisher: SELECT pg_drop_replication_slot('%s')", in.Slot)
		v.Helps, v.NotHelps = []string{"dropping the leftover slot (pg_drop_replication_slot)"}, []string{"anything about speed: nothing uses this slot"}
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
