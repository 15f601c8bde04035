package measure

import (
	"slices"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/topology"
)

// primaryOnly is a primary alone over ticks a second apart, listing at
// each tick the physical walsenders of senders(i); each sender's standby
// has replayed up to its Replay.
func primaryOnly(ticks int, senders func(i int) []sample.Sender) *sample.Recording {
	t0 := time.Date(2026, 12, 6, 4, 0, 0, 0, time.UTC)
	rec := &sample.Recording{Version: sample.RecordingVersion, Start: t0, End: t0.Add(time.Duration(ticks-1) * time.Second),
		Nodes: []sample.Node{{Node: topology.Node{ID: sample.PrimaryNode, Role: topology.Primary}, Server: sample.Server{Version: "16.4", Major: 16}}}}
	for i := range ticks {
		cur := lsn.LSN(1<<30 + i*1e6)
		ss := senders(i)
		for k := range ss {
			ss[k].Physical, ss[k].State, ss[k].Sent, ss[k].Write, ss[k].Flush = true, "streaming", cur, cur, cur
		}
		rec.Ticks = append(rec.Ticks, sample.Tick{At: t0.Add(time.Duration(i) * time.Second),
			Reads: []sample.Read{{Node: sample.PrimaryNode, OK: true, CurrentLSN: cur, Senders: ss}}})
	}
	return rec
}

func labels(keys []StandbyKey) []string {
	var out []string
	for _, k := range keys {
		out = append(out, k.Label())
	}
	return out
}

func TestStandbysThatShareTheDefaultApplicationNameAreToldApartBySlotOrPid(t *testing.T) {
	// Two slot-less standbys with primary_conninfo's default name, one on
	// a slot, and a named one: four paths, each with its own positions.
	rec := primaryOnly(5, func(i int) []sample.Sender {
		base := lsn.LSN(1 << 30)
		return []sample.Sender{
			{PID: 10, AppName: "walreceiver", Replay: base + lsn.LSN(i*1e6)},
			{PID: 11, AppName: "walreceiver", Replay: base},
			{PID: 12, AppName: "walreceiver", Slot: "dr", Replay: base + lsn.LSN(i*5e5)},
			{PID: 13, AppName: "reports", Replay: base},
		}
	})
	keys := StandbyKeys(rec)
	want := []string{"reports", "walreceiver (pid 10)", "walreceiver (pid 11)", "walreceiver (slot dr)"}
	if got := labels(keys); !slices.Equal(got, want) {
		t.Fatalf("paths %q, want %q", got, want)
	}
	replayed := map[string]float64{}
	for _, k := range keys {
		p := PhysicalOf(rec, k)
		if p.Standby != k.Label() || p.Sender == nil {
			t.Fatalf("path %q: standby %q, sender %v", k.Label(), p.Standby, p.Sender)
		}
		replayed[p.Standby] = p.Replayed
	}
	if replayed["walreceiver (pid 10)"] != 1e6 || replayed["walreceiver (pid 11)"] != 0 || replayed["walreceiver (slot dr)"] != 5e5 {
		t.Errorf("replay rates %v: each path must keep its own walsender's positions", replayed)
	}
}

func TestAStandbyThatReconnectsUnderANewPidStaysOnePath(t *testing.T) {
	rec := primaryOnly(6, func(i int) []sample.Sender {
		pid := 10
		if i >= 3 {
			pid = 20 // its walsender restarted
		}
		return []sample.Sender{{PID: pid, AppName: "walreceiver", Replay: lsn.LSN(1 << 30)}}
	})
	if got := labels(StandbyKeys(rec)); !slices.Equal(got, []string{"walreceiver"}) {
		t.Errorf("paths %q, want one named walreceiver", got)
	}
	// The same name on a slot and without one at different times is two
	// standbys, each named by what sets it apart.
	rec = primaryOnly(6, func(i int) []sample.Sender {
		if i < 3 {
			return []sample.Sender{{PID: 10, AppName: "walreceiver"}}
		}
		return []sample.Sender{{PID: 20, AppName: "walreceiver", Slot: "s"}}
	})
	if got := labels(StandbyKeys(rec)); !slices.Equal(got, []string{"walreceiver (no slot)", "walreceiver (slot s)"}) {
		t.Errorf("paths %q", got)
	}
}

func TestACascadedStandbyIsNotGivenThePrimarysOnlyWalsender(t *testing.T) {
	// The standby streams from slot "hop2" on another standby; the
	// primary's only walsender serves slot "hop1": not this path's.
	rec := physRec(1e6, 1e6, 10e6, "", "")
	for i := range rec.Ticks {
		rd := rec.Ticks[i].Reads
		rd[0].Senders[0].Slot = "hop1"
		rd[1].Standby.Receiver.Slot = "hop2"
	}
	p := PhysicalOf(rec, StandbyKey{})
	if p.Sender != nil || p.Known[PosSent] {
		t.Errorf("the cascade was given the primary's walsender %+v (sent known %v)", p.Sender, p.Known[PosSent])
	}
	// On its own slot it is.
	for i := range rec.Ticks {
		rec.Ticks[i].Reads[1].Standby.Receiver.Slot = "hop1"
	}
	if p := PhysicalOf(rec, StandbyKey{}); p.Sender == nil || p.Standby != "s1" {
		t.Errorf("the standby on the walsender's slot lost it: %+v", p.Sender)
	}
}
