package measure

import (
	"regexp"
	"strconv"

	"github.com/lagscope/lagscope/internal/sample"
)

// tablesyncRE matches the slot a tablesync worker creates for the initial
// copy of one table: pg_<subscription oid>_sync_<relid>_<system id>.
var tablesyncRE = regexp.MustCompile(`^pg_(\d+)_sync_(\d+)_\d+$`)

// TablesyncSlot parses a tablesync slot's name; ok is false for any other
// slot.
func TablesyncSlot(name string) (subOID, relID int64, ok bool) {
	m := tablesyncRE.FindStringSubmatch(name)
	if m == nil {
		return 0, 0, false
	}
	subOID, err1 := strconv.ParseInt(m[1], 10, 64)
	relID, err2 := strconv.ParseInt(m[2], 10, 64)
	return subOID, relID, err1 == nil && err2 == nil
}

// Tablesync is the initial copy of one table by a tablesync worker, as a
// recording shows it.
type Tablesync struct {
	SubOID, RelID int64
	// Table is the table's name on the subscriber ("" when its COPY was not
	// seen: PostgreSQL 13, or the copy is done and the worker catches up).
	Table string
	// Bytes and BytesTotal are the COPY's progress at the window's end;
	// Rate is its advance over the window, bytes/s (-1 when not seen twice).
	Bytes, BytesTotal int64
	Rate              float64
	// Workers is the number of tablesync workers of the subscription at
	// the last tick that listed it (0 when none did).
	Workers int
}

// tablesyncOf reads the COPY progress of table relID and the tablesync
// workers of subscription subOID from the recording.
func tablesyncOf(rec *sample.Recording, subOID, relID int64) *Tablesync {
	s := &Tablesync{SubOID: subOID, RelID: relID, Rate: -1}
	var first, last *sample.CopyProgress
	var t0, t1 float64
	for i := range rec.Ticks {
		t := &rec.Ticks[i]
		for j := range t.Read(sample.SubscriberNode).Copies {
			c := &t.Read(sample.SubscriberNode).Copies[j]
			if c.RelID != relID {
				continue
			}
			if first == nil {
				first, t0 = c, float64(t.At.UnixNano())/1e9
			}
			last, t1 = c, float64(t.At.UnixNano())/1e9
		}
		for _, sub := range t.Read(sample.SubscriberNode).Subs {
			if sub.OID == subOID {
				s.Workers = len(sub.SyncWorkers)
			}
		}
	}
	if last == nil {
		return s
	}
	s.Table, s.Bytes, s.BytesTotal = last.Table, last.Bytes, last.BytesTotal
	if t1 > t0 {
		s.Rate = float64(last.Bytes-first.Bytes) / (t1 - t0)
	}
	return s
}
