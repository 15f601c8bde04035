package measure

import (
	"cmp"
	"slices"
	"time"

	"github.com/lagscope/lagscope/internal/sample"
)

// TableWork is what the subscriber did to one subscribed table over a
// window: the deltas of its pg_stat_user_tables counters between the first
// and the last tick that read them. The counters count every session's
// work on the table, the apply workers' and any other's.
type TableWork struct {
	RelID  int64  `json:"relid"`
	Schema string `json:"schema"`
	Name   string `json:"name"`
	// Subs are the oids of the subscriptions the table is in.
	Subs []int64 `json:"subscriptions"`
	// Seconds is the time between the two reads (> 0).
	Seconds float64 `json:"seconds"`
	// The counts in the window.
	sample.TableCounts
}

// Changed is the rows inserted, updated and deleted.
func (w TableWork) Changed() int64 { return w.Inserted + w.Updated + w.Deleted }

// PerSecond is n over the window's seconds.
func (w TableWork) PerSecond(n int64) float64 { return float64(n) / w.Seconds }

// SeqReadPerChange is the rows sequential scans read per row updated or
// deleted (the changes that must find their row first; 0 when there were
// none): about half the table when each change scans for its row.
func (w TableWork) SeqReadPerChange() float64 {
	if n := w.Updated + w.Deleted; n > 0 {
		return float64(w.SeqRead) / float64(n)
	}
	return 0
}

// TablesOf returns what the subscriber did per subscribed table over the
// recording: for each table, the deltas between the first and the last
// tick whose read of the counters has it. A table read at fewer than two
// ticks, or whose counters went down (statistics reset in between), is
// left out: its work is unknown. Nil when the counters were not read
// (samples before version 9, a failed read, no subscriber). In relid order.
func TablesOf(rec *sample.Recording) []TableWork {
	type seen struct {
		first, last sample.TableStat
		from, to    time.Time
	}
	by := map[int64]*seen{}
	for _, tk := range rec.Ticks {
		sub := tk.Read(sample.SubscriberNode)
		if !sub.OK || sub.Applied == nil {
			continue
		}
		for _, t := range sub.Applied.Tables {
			if s := by[t.RelID]; s != nil {
				s.last, s.to = t, tk.At
			} else {
				by[t.RelID] = &seen{first: t, last: t, from: tk.At, to: tk.At}
			}
		}
	}
	var out []TableWork
	for _, s := range by {
		d, ok := s.last.Since(s.first.TableCounts)
		b := s.last
		w := TableWork{RelID: b.RelID, Schema: b.Schema, Name: b.Name, Subs: b.Subs, Seconds: s.to.Sub(s.from).Seconds(), TableCounts: d}
		if !ok || w.Seconds <= 0 {
			continue
		}
		out = append(out, w)
	}
	slices.SortFunc(out, func(a, b TableWork) int { return cmp.Compare(a.RelID, b.RelID) })
	return out
}

// TablesIn keeps the tables of the subscription whose oid is sub.
func TablesIn(ws []TableWork, sub int64) []TableWork {
	var out []TableWork
	for _, w := range ws {
		if slices.Contains(w.Subs, sub) {
			out = append(out, w)
		}
	}
	return out
}

// ApplyWAL is the WAL the apply workers (leader and parallel) of the
// subscription named sub wrote over the recording, in bytes, from
// pg_stat_get_backend_wal (18+): per worker, its last read minus its first,
// summed. ok is false when no worker was read at two ticks (before 18,
// samples before version 9).
func ApplyWAL(rec *sample.Recording, sub string) (bytes int64, ok bool) {
	return workerDeltas(rec, sub, func(w *sample.ApplyWork) map[int]int64 {
		out := map[int]int64{}
		for _, x := range w.WAL {
			out[x.PID] = x.Bytes
		}
		return out
	}, func(b, a int64) (int64, bool) { return b - a, b >= a }, func(x, y int64) int64 { return x + y })
}

// ApplyIO is the buffer I/O on relations of the apply workers (leader and
// parallel) of the subscription named sub over the recording, in blocks,
// from pg_stat_get_backend_io (18+), summed as ApplyWAL sums the WAL (the
// sum's PID is 0); ok is false when no worker was read at two ticks.
func ApplyIO(rec *sample.Recording, sub string) (io sample.BackendIO, ok bool) {
	return workerDeltas(rec, sub, func(w *sample.ApplyWork) map[int]sample.BackendIO {
		out := map[int]sample.BackendIO{}
		for _, x := range w.IO {
			out[x.PID] = x
		}
		return out
	}, sample.BackendIO.Since, sample.BackendIO.Plus)
}

// workerDeltas sums, over the subscription's apply workers read at two
// ticks or more, each worker's last reading minus its first (since; a
// worker whose counters went down is left out, as since says); read gives
// a tick's readings by pid.
func workerDeltas[T any](rec *sample.Recording, sub string, read func(*sample.ApplyWork) map[int]T,
	since func(last, first T) (T, bool), add func(x, y T) T) (sum T, ok bool) {
	first, last := map[int]T{}, map[int]T{}
	reads := map[int]int{}
	for _, tk := range rec.Ticks {
		rd := tk.Read(sample.SubscriberNode)
		if !rd.OK || rd.Applied == nil {
			continue
		}
		var mine []int
		for _, s := range rd.Subs {
			if s.Name == sub {
				mine = append(append(mine, s.WorkerPID), s.ParallelWorkers...)
			}
		}
		for pid, x := range read(rd.Applied) {
			if !slices.Contains(mine, pid) {
				continue
			}
			if reads[pid] == 0 {
				first[pid] = x
			}
			last[pid] = x
			reads[pid]++
		}
	}
	for pid, n := range reads {
		if d, up := since(last[pid], first[pid]); n >= 2 && up {
			sum, ok = add(sum, d), true
		}
	}
	return sum, ok
}
