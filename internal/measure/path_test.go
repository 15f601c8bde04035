package measure

import (
	"testing"

	"github.com/lagscope/lagscope/internal/sample"
)

// A path's facts come from the ticks that listed its slot and its
// subscription: the ends, the deltas between them, and what changed.
func TestPathFacts(t *testing.T) {
	lag := 2.5
	a, b, c := tick(0, 3000, 2000, 1000, 1000), tick(1, 4000, 3000, 2500, 2000), tick(2, 6000, 5000, 4000, 3000)
	a.Read(sample.PublisherNode).Slots[0].SpillBytes, c.Read(sample.PublisherNode).Slots[0].SpillBytes = 100, 700
	b.Read(sample.SubscriberNode).Subs[0].WorkerPID, b.Read(sample.SubscriberNode).Subs[0].ApplyErrors, c.Read(sample.SubscriberNode).Subs[0].ApplyErrors = 21, 1, 3
	b.Read(sample.PublisherNode).Senders[0].FlushLagS = &lag
	rec := &sample.Recording{Ticks: []sample.Tick{a, {At: at(1.5)}, b, c}}
	p := PathOf(rec, "s")
	if p.First == nil || p.Last == nil || p.First.CurrentLSN != 3000 || p.Last.Sent != 5000 {
		t.Fatalf("ends %+v %+v, want the first and last ticks' slot, position and sent_lsn", p.First, p.Last)
	}
	if p.SpillBytes != 600 || p.ApplyErrors != 3 || p.WorkerChanges != 2 || p.MedianLag != 2000 || p.FlushLagS != lag {
		t.Errorf("spill %d, apply errors %d, worker changes %d, median lag %d, flush lag %v; want 600, 3, 2, 2000, 2.5",
			p.SpillBytes, p.ApplyErrors, p.WorkerChanges, p.MedianLag, p.FlushLagS)
	}
	if p.Reported == nil || p.Reported.FlushBehind != 1000 || p.Sub == nil || p.Sub.Name != "s" || p.Tablesync != nil {
		t.Errorf("reported %+v, subscription %+v, tablesync %+v; want flush 1000 behind sent, s, none", p.Reported, p.Sub, p.Tablesync)
	}
	if none := PathOf(rec, "other"); none.First != nil || none.Sub != nil || none.FlushLagS != -1 || none.MedianLag != 0 {
		t.Errorf("a slot never listed: %+v, want no ends, no subscription, flush lag -1", none)
	}
}

// A tablesync slot's subscription is found by the oid in the slot's name,
// and its copy's progress by the relid.
func TestPathOfATablesyncSlot(t *testing.T) {
	const slot = "pg_16399_sync_16390_7300000000000000001"
	var ticks []sample.Tick
	for i, copied := range []int64{1 << 20, 3 << 20} {
		tk := tick(float64(2*i), 5000, 4000, 4000, 4000)
		tk.Read(sample.PublisherNode).Slots[0].Name = slot
		tk.Edit(sample.SubscriberNode).Subs = []sample.Sub{{Name: "sub", Slot: "sub_slot", OID: 16399, WorkerPID: 20, SyncWorkers: []int{30}}}
		tk.Edit(sample.SubscriberNode).Copies = []sample.CopyProgress{{RelID: 16390, Table: "public.hot", Bytes: copied}}
		ticks = append(ticks, tk)
	}
	p := PathOf(&sample.Recording{Ticks: ticks}, slot)
	if p.Sub == nil || p.Sub.Name != "sub" {
		t.Errorf("subscription %+v, want sub (oid 16399)", p.Sub)
	}
	if s := p.Tablesync; s == nil || s.Table != "public.hot" || s.Workers != 1 || !near(s.Rate, 1<<20) {
		t.Errorf("tablesync %+v, want public.hot copied at 1 MiB/s by 1 worker", s)
	}
}
