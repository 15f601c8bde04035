package model

import (
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/sample"
)

// withStandbySlot gives c's standby a logical slot decoded by walsender
// 300, whose probes all see it wait on event, and invalidation as its
// slot's.
func withStandbySlot(c physCase, event, invalidation string) *sample.Recording {
	rec := c.recording()
	for i := range rec.Ticks {
		r := rec.Ticks[i].Edit(sample.StandbyNode)
		r.Standby.LogicalSlots = []sample.Slot{{Name: "sub\x1b[2J", Database: "app", Active: true, ActivePID: 300, Invalidation: invalidation}}
		r.Senders = []sample.Sender{{PID: 300, AppName: "sub", State: "streaming"}}
	}
	for i := range rec.Probes {
		if rec.Probes[i].Side == string(sample.StandbyNode) {
			rec.Probes[i].Waits = append(rec.Probes[i].Waits, sample.Wait{PID: 300, Type: "Client", Event: event})
		}
	}
	return rec
}

// TestStandbyReplayLimitsDecoding: a logical walsender on a standby
// waiting for WAL (17's spelling) while 200 MB received is not replayed
// names the standby's replay as its limit, with hot_standby_feedback off
// as a cause; the same walsender with everything replayed keeps up; an
// invalidated slot says so; a walsender busy decoding is not held by
// replay.
func TestStandbyReplayLimitsDecoding(t *testing.T) {
	decode := func(rec *sample.Recording) StandbyDecoding {
		t.Helper()
		ds := StandbyDecodings(measure.PhysicalOf(rec, measure.StandbyKey{}))
		if len(ds) != 1 {
			t.Fatalf("%d slots on the standby, want 1", len(ds))
		}
		return ds[0]
	}
	d := decode(withStandbySlot(replayBound, "WalSenderWaitForWal", ""))
	if d.Limit != StageReplay || d.WaitForWALShare < 0.99 || d.Unreplayed < 100e6 {
		t.Errorf("%+v: want the standby's replay limiting", d)
	}
	if !strings.Contains(d.Text, "the standby's replay limits its decoding") || !strings.Contains(d.Text, "hot_standby_feedback is off") || strings.Contains(d.Text, "\x1b") {
		t.Errorf("text %q", d.Text)
	}

	caughtUp := physCase{gen: 1e6, sent: 1e6, rep: 1e6, cpu: 0.1, receiver: "WalReceiverMain", walsender: "WalSenderWaitForWAL",
		edit: func(_ int, s *sample.StandbyRead, _ *sample.Sender) { s.Settings.HotStandbyFeedback = true }}
	d = decode(withStandbySlot(caughtUp, "WalSenderWaitForWAL", ""))
	if d.Limit != "" || !strings.Contains(d.Text, "keeps up with the standby") || len(d.Causes) != 0 {
		t.Errorf("%+v: want it keeping up, no cause", d)
	}

	d = decode(withStandbySlot(caughtUp, "WalSenderWaitForWAL", "rows_removed"))
	if d.Limit != "" || !strings.Contains(d.Text, "invalidated (rows_removed)") {
		t.Errorf("%+v: want it invalidated", d)
	}

	d = decode(withStandbySlot(replayBound, "", ""))
	if d.Limit != "" || d.WaitForWALShare != 0 || !strings.Contains(d.Text, "replay is not what holds it") {
		t.Errorf("%+v: a walsender on a CPU is not held by replay", d)
	}
}

// TestStandbyDecodingOnTheRecordedRun reads the standby-decoding run on
// 18.4: the slot on the standby, its walsender waiting for WAL while
// replay is paused with 153 MB received not replayed, names replay.
func TestStandbyDecodingOnTheRecordedRun(t *testing.T) {
	rec := load(t, "../classify/testdata/physical/standby-decoding-pg18-diag.json")
	in := PhysicalInputs(rec)
	if v := JudgePhysical(in[0]); v.Name != ReplayPaused {
		t.Errorf("verdict %s, want %s", v.Name, ReplayPaused)
	}
	ds := StandbyDecodings(in[0].Path)
	if len(ds) != 1 || ds[0].Slot != "lab_standby_decoding" || !ds[0].Active {
		t.Fatalf("slots on the standby %+v, want lab_standby_decoding decoded", ds)
	}
	if d := ds[0]; d.Limit != StageReplay || d.WaitForWALShare < MostProbes || d.Unreplayed < 4<<20 || d.Invalidation != "" {
		t.Errorf("%+v: want replay named, the walsender waiting for WAL", d)
	}
}
