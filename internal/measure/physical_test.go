package measure

import (
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/topology"
)

// physRec is a primary and its standby over 10 ticks a second apart: the
// primary writes gen bytes/s, the walsender sends everything, the standby
// receives everything and replays rep bytes/s from a backlog of start
// bytes; the startup process waits with event ev (none: on CPU) at every
// probe, 10 a second.
func physRec(gen, rep, start int64, evType, ev string) *sample.Recording {
	t0 := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	rec := &sample.Recording{Version: sample.RecordingVersion, Start: t0, End: t0.Add(9 * time.Second),
		Nodes: []sample.Node{
			{Node: topology.Node{ID: sample.PrimaryNode, Role: topology.Primary}, Server: sample.Server{Version: "16.4", Major: 16}},
			{Node: topology.Node{ID: sample.StandbyNode, Role: topology.Standby}, Server: sample.Server{Version: "16.4", Major: 16}},
		}}
	base := lsn.LSN(1 << 30)
	for i := int64(0); i < 10; i++ {
		at := t0.Add(time.Duration(i) * time.Second)
		cur := base + lsn.LSN(i*gen)
		replay := base - lsn.LSN(start) + lsn.LSN(i*rep)
		rec.Ticks = append(rec.Ticks, sample.Tick{At: at, Reads: []sample.Read{
			{Node: sample.PrimaryNode, OK: true, CurrentLSN: cur,
				Senders: []sample.Sender{{PID: 100, AppName: "s1", State: "streaming", Sent: cur, Write: cur, Flush: cur, Replay: replay, Physical: true, SyncState: "async"}}},
			{Node: sample.StandbyNode, OK: true, Standby: &sample.StandbyRead{Receive: cur, Replay: replay, Now: at, PauseState: "not paused", StartupPID: 200,
				Receiver:  &sample.WALReceiver{PID: 201, Status: "streaming", Written: cur, Flushed: cur, LatestEnd: cur},
				Conflicts: map[string]int64{"snapshot": i / 3}}},
		}})
		for k := 0; k < 10; k++ {
			rec.Probes = append(rec.Probes, sample.Probe{At: at.Add(time.Duration(k) * 100 * time.Millisecond), Side: string(sample.StandbyNode),
				Waits: []sample.Wait{{PID: 200, Type: evType, Event: ev}, {PID: 201, Type: "Activity", Event: "WalReceiverMain"}}})
		}
	}
	return rec
}

func TestAPhysicalPathsRatesAndBacklogsComeFromEachStagesPosition(t *testing.T) {
	p := PhysicalOf(physRec(1e6, 3e6, 50e6, "", ""), StandbyKey{})
	if p.Standby != "s1" || !p.HasPrimary || !p.HasStandby {
		t.Fatalf("path %q primary %v standby %v", p.Standby, p.HasPrimary, p.HasStandby)
	}
	if p.Generated != 1e6 || p.Sent != 1e6 || p.Received != 1e6 || p.Replayed != 3e6 {
		t.Errorf("rates generated %g sent %g received %g replayed %g", p.Generated, p.Sent, p.Received, p.Replayed)
	}
	// 50 MB behind at the start, 2 MB/s net over 9 s.
	if p.Unsent != 0 || p.InFlight != 0 || p.Unreplayed != 50e6-18e6 || p.UnreplayedStart != 50e6 || p.Behind() != 32e6 {
		t.Errorf("backlogs unsent %d in flight %d unreplayed %d (start %d)", p.Unsent, p.InFlight, p.Unreplayed, p.UnreplayedStart)
	}
	if p.Replay[ReplayOnCPU] != 1 || p.Startup.Probes != 91 || p.Receiver.Share("WalReceiverMain") != 1 {
		t.Errorf("startup %v (%d probes), receiver %v", p.Replay, p.Startup.Probes, p.Receiver.WaitShares)
	}
	if p.Conflicts["snapshot"] != 3 {
		t.Errorf("conflicts %v, want 3 snapshot cancellations", p.Conflicts)
	}
}

func TestTheStandbyAloneMeasuresReceiveAndReplayAndTheWALItKnowsItLacks(t *testing.T) {
	rec := physRec(1e6, 1e6, 0, "Activity", "RecoveryWalStream")
	rec.Nodes = rec.Nodes[1:]
	for i := range rec.Ticks {
		rec.Ticks[i].Reads = rec.Ticks[i].Reads[1:]
	}
	p := PhysicalOf(rec, StandbyKey{})
	if p.HasPrimary || p.Standby != "standby" || p.Sent != 0 || p.Known[PosSent] || p.Unsent != -1 {
		t.Errorf("standby alone: %+v", p)
	}
	if p.Generated != 1e6 || p.Replayed != 1e6 || p.Unreplayed != 0 || p.Replay[ReplayWaitingForWAL] != 1 {
		t.Errorf("generated (latest_end_lsn) %g replayed %g unreplayed %d classes %v", p.Generated, p.Replayed, p.Unreplayed, p.Replay)
	}
}

func TestReplayWaitsAreClassedByVersion(t *testing.T) {
	for _, c := range []struct {
		typ, ev string
		major   int
		want    string
	}{
		{"", "", 15, ReplayOnCPU},
		{"Activity", "RecoveryWalStream", 15, ReplayWaitingForWAL},
		{"Activity", "RecoveryRetrieveRetryInterval", 18, ReplayWaitingForWAL},
		{"IPC", "RecoveryPause", 15, ReplayPausedWait},
		{"Timeout", "RecoveryApplyDelay", 18, ReplayDelayWait},
		{"IPC", "RecoveryConflictSnapshot", 15, ReplayConflictSnapshot},
		{"IPC", "RecoveryConflictTablespace", 15, ReplayConflictTablespace},
		{"Lock", "relation", 15, ReplayConflictLock},
		{"BufferPin", "BufferPin", 15, ReplayConflictBufferPin},
		{"Buffer", "BufferPin", 19, ReplayConflictBufferPin},
		{"IO", "DataFileRead", 15, ReplayDataRead},
		{"IO", "DataFilePrefetch", 16, ReplayDataRead},
		{"IO", "WALRead", 16, ReplayWALRead},
		{"IO", "WalRead", 17, ReplayWALRead},
		{"LWLock", "BufferContent", 17, ReplayOtherWait},
	} {
		if got := ReplayClass(sample.Wait{Type: c.typ, Event: c.ev}, c.major); got != c.want {
			t.Errorf("%s/%s on %d: %s, want %s", c.typ, c.ev, c.major, got, c.want)
		}
	}
}

// A standby whose reads all failed (recovery cancelled them: 15.18,
// replay-cpu's 2 GB backlog) is measured from what it told the primary,
// not counted as caught up.
func TestAStandbyNotReadIsMeasuredFromWhatItToldThePrimary(t *testing.T) {
	rec := physRec(0, 100e6, 2000e6, "", "")
	for i := range rec.Ticks {
		rec.Ticks[i].Reads[1] = sample.Read{Node: sample.StandbyNode}
	}
	p := PhysicalOf(rec, StandbyKey{})
	if p.Unreplayed != 2000e6-900e6 || p.Behind() != 1100e6 || p.Replayed != 100e6 {
		t.Errorf("unreplayed %d behind %d replayed %g: want the sender's flush and replay positions (1.1 GB behind, 100 MB/s)", p.Unreplayed, p.Behind(), p.Replayed)
	}
	// Ticks 4 and 6 read, the others not: the standby's own positions at
	// tick 6 (1.4 GB behind), its replay rate between them.
	for _, i := range []int{4, 6} {
		rec.Ticks[i].Reads[1] = physRec(0, 100e6, 2000e6, "", "").Ticks[i].Reads[1]
	}
	if q := PhysicalOf(rec, StandbyKey{}); q.Behind() != 1400e6 || q.Replayed != 100e6 {
		t.Errorf("mixed ticks: behind %d replayed %g, want 1.4 GB at tick 6 and 100 MB/s", q.Behind(), q.Replayed)
	}
}

// The primary's pg_stat_wal over the window: the full-page images and the
// bytes its WAL grew by; unknown (-1) when read at one tick only or reset.
func TestThePrimarysWALCountersGiveTheWindowsFullPageImages(t *testing.T) {
	rec := physRec(1e6, 1e6, 10e6, "", "")
	for i := range rec.Ticks {
		rec.Ticks[i].Reads[0].WAL = &sample.WALStats{Records: int64(5000 + 1000*i), FPI: int64(700 + 50*i), Bytes: int64(3e9 + 1e6*i)}
	}
	if p := PhysicalOf(rec, StandbyKey{}); p.FPI != 450 || p.WALBytes != 9e6 {
		t.Errorf("images %d, bytes %d: want 450 and 9 MB over the 9 s", p.FPI, p.WALBytes)
	}
	rec.Ticks[9].Reads[0].WAL = &sample.WALStats{} // pg_stat_reset_shared('wal')
	if p := PhysicalOf(rec, StandbyKey{}); p.FPI != -1 || p.WALBytes != -1 {
		t.Errorf("after a reset: images %d, bytes %d, want unknown", p.FPI, p.WALBytes)
	}
	for i := range rec.Ticks {
		rec.Ticks[i].Reads[0].WAL = nil
	}
	rec.Ticks[3].Reads[0].WAL = &sample.WALStats{Bytes: 5}
	if p := PhysicalOf(rec, StandbyKey{}); p.FPI != -1 || p.WALBytes != -1 {
		t.Errorf("read once: images %d, bytes %d, want unknown", p.FPI, p.WALBytes)
	}
}
