package measure

import (
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/sample"
)

// tablesTick is a subscriber tick at second s holding the tables' counters
// (nil: the read failed) and the apply workers' WAL.
func tablesTick(s int, tables []sample.TableStat, wal ...sample.BackendWAL) sample.Tick {
	tk := sample.Tick{At: time.Unix(1_800_000_000+int64(s), 0), Reads: []sample.Read{{Node: sample.PublisherNode, OK: true}, {Node: sample.SubscriberNode, OK: true}}}
	if tables != nil {
		tk.Edit(sample.SubscriberNode).Applied = &sample.ApplyWork{Tables: tables, WAL: wal}
	}
	return tk
}

func TestTablesOf(t *testing.T) {
	hot := func(upd, seq, read int64) sample.TableStat {
		return sample.TableStat{RelID: 16390, Schema: "public", Name: "hot", Subs: []int64{16400}, TableCounts: sample.TableCounts{Updated: upd, SeqScans: seq, SeqRead: read}}
	}
	cases := []struct {
		name  string
		ticks []sample.Tick
		want  []TableWork
	}{
		{"the deltas run from the first to the last tick that read the counters",
			[]sample.Tick{tablesTick(0, nil), tablesTick(1, []sample.TableStat{hot(100, 100, 5_000_000)}),
				tablesTick(2, []sample.TableStat{hot(150, 150, 7_500_000)}), tablesTick(5, []sample.TableStat{hot(400, 400, 20_000_000)}), tablesTick(6, nil)},
			[]TableWork{{RelID: 16390, Schema: "public", Name: "hot", Subs: []int64{16400}, Seconds: 4, TableCounts: sample.TableCounts{Updated: 300, SeqScans: 300, SeqRead: 15_000_000}}}},
		{"a table read once has no window",
			[]sample.Tick{tablesTick(0, []sample.TableStat{hot(1, 1, 1)}), tablesTick(1, []sample.TableStat{})}, nil},
		{"counters that went down were reset: the work is unknown",
			[]sample.Tick{tablesTick(0, []sample.TableStat{hot(500, 500, 1000)}), tablesTick(1, []sample.TableStat{hot(10, 10, 20)})}, nil},
		{"samples without the counters have none",
			[]sample.Tick{tablesTick(0, nil), tablesTick(1, nil)}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := TablesOf(&sample.Recording{Ticks: c.ticks})
			if len(got) != len(c.want) {
				t.Fatalf("TablesOf = %+v, want %+v", got, c.want)
			}
			for i := range got {
				g, w := got[i], c.want[i]
				if g.RelID != w.RelID || g.Seconds != w.Seconds || g.Updated != w.Updated || g.SeqScans != w.SeqScans || g.SeqRead != w.SeqRead {
					t.Errorf("TablesOf[%d] = %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

func TestTableWorkRates(t *testing.T) {
	w := TableWork{Seconds: 4, TableCounts: sample.TableCounts{Updated: 300, Deleted: 100, Inserted: 100, SeqRead: 20_000_000}}
	if got := w.PerSecond(w.SeqRead); got != 5_000_000 {
		t.Errorf("rows read per second %g, want 5e6", got)
	}
	if got := w.SeqReadPerChange(); got != 50_000 {
		t.Errorf("rows read per row updated or deleted %g, want 50000 (inserts find no row)", got)
	}
	if got := (TableWork{Seconds: 1, TableCounts: sample.TableCounts{Inserted: 10}}).SeqReadPerChange(); got != 0 {
		t.Errorf("no update or delete: %g rows read per change, want 0", got)
	}
	if got := TablesIn([]TableWork{{RelID: 1, Subs: []int64{7}}, {RelID: 2, Subs: []int64{8, 7}}, {RelID: 3, Subs: []int64{8}}}, 7); len(got) != 2 {
		t.Errorf("TablesIn kept %+v, want relids 1 and 2", got)
	}
}

// The apply workers' WAL is each worker's last read minus its first: a
// parallel worker that came and went adds what it wrote while it was read;
// another subscription's worker adds nothing.
func TestApplyWAL(t *testing.T) {
	none := []sample.TableStat{}
	withSubs := func(tk sample.Tick, parallel ...int) sample.Tick {
		tk = tk.Clone()
		tk.Edit(sample.SubscriberNode).Subs = []sample.Sub{{Name: "lab_sub", WorkerPID: 10, ParallelWorkers: parallel}, {Name: "other", WorkerPID: 20}}
		return tk
	}
	rec := &sample.Recording{Ticks: []sample.Tick{
		withSubs(tablesTick(0, none, sample.BackendWAL{PID: 10, Bytes: 1000}, sample.BackendWAL{PID: 20, Bytes: 0})),
		withSubs(tablesTick(1, none, sample.BackendWAL{PID: 10, Bytes: 5000}, sample.BackendWAL{PID: 11, Bytes: 0}), 11),
		withSubs(tablesTick(2, none, sample.BackendWAL{PID: 10, Bytes: 9000}, sample.BackendWAL{PID: 11, Bytes: 300}, sample.BackendWAL{PID: 20, Bytes: 1e6}), 11),
		withSubs(tablesTick(3, none, sample.BackendWAL{PID: 12, Bytes: 70}), 12),
	}}
	if b, ok := ApplyWAL(rec, "lab_sub"); !ok || b != 8300 {
		t.Errorf("ApplyWAL = %d, %v; want 8300, true", b, ok)
	}
	if _, ok := ApplyWAL(&sample.Recording{Ticks: []sample.Tick{withSubs(tablesTick(0, none)), withSubs(tablesTick(1, none))}}, "lab_sub"); ok {
		t.Errorf("no worker's WAL read (before 18): want not ok")
	}
}

// The apply workers' relation I/O is summed as their WAL is: per worker,
// last minus first; a worker whose counters went down (a new backend with
// the same pid) adds nothing.
func TestApplyIO(t *testing.T) {
	tick := func(i int, io ...sample.BackendIO) sample.Tick {
		tk := tablesTick(i, []sample.TableStat{})
		tk.Read(sample.SubscriberNode).Applied.IO = io
		tk.Edit(sample.SubscriberNode).Subs = []sample.Sub{{Name: "lab_sub", WorkerPID: 10, ParallelWorkers: []int{11}}, {Name: "other", WorkerPID: 20}}
		return tk
	}
	rec := &sample.Recording{Ticks: []sample.Tick{
		tick(0, sample.BackendIO{PID: 10, Reads: 5, Hits: 100}, sample.BackendIO{PID: 11, Hits: 50}, sample.BackendIO{PID: 20, Hits: 1}),
		tick(1, sample.BackendIO{PID: 10, Reads: 7, Hits: 400, Extends: 3, Writes: 1}, sample.BackendIO{PID: 11, Hits: 10}, sample.BackendIO{PID: 20, Hits: 1e6}),
	}}
	io, ok := ApplyIO(rec, "lab_sub")
	if want := (sample.BackendIO{Reads: 2, Hits: 300, Extends: 3, Writes: 1}); !ok || io != want {
		t.Errorf("ApplyIO = %+v, %v; want %+v, true", io, ok, want)
	}
	if _, ok := ApplyIO(&sample.Recording{Ticks: []sample.Tick{tick(0), tick(1)}}, "lab_sub"); ok {
		t.Errorf("no worker's I/O read (before 18): want not ok")
	}
}
