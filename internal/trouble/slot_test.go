package trouble

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/testkit/recordings"
)

func load(t *testing.T, name string) *sample.Recording {
	t.Helper()
	rec, err := recordings.Read("../classify/testdata", name)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// withKeep gives a recording made before safe_wal_size was read the
// figure the server would have shown under max_slot_wal_keep_size = keep
// (safe_wal_size = keep - retained, to the byte: the segment rounding
// does not matter here).
func withKeep(rec *sample.Recording, keep int64) {
	rec.Version = 8
	for i := range rec.Ticks {
		t := &rec.Ticks[i]
		for j := range t.Read(sample.PublisherNode).Slots {
			safe := keep - t.Read(sample.PublisherNode).CurrentLSN.Sub(t.Read(sample.PublisherNode).Slots[j].RestartLSN)
			t.Read(sample.PublisherNode).Slots[j].SafeWALSize = &safe
		}
	}
}

// A disabled subscription's slot (the lab's stalled state, 16.14): the
// retained WAL grows at the publisher's WAL rate, nothing released.
func TestAStalledSlotGrowsAtTheWALRate(t *testing.T) {
	rec := load(t, "stalled-pg16-diag")
	s := Of(rec, "lab_sub")
	if s == nil || !s.Growing || s.ReleasedBps != 0 || s.GrowthBps != s.WrittenBps || s.WrittenBps < 1e6 {
		t.Fatalf("%+v: want growing at the WAL rate (MB/s), nothing released", s)
	}
	if s.SafeBytes != -1 || s.UnreservedInS != -1 || !strings.Contains(s.Text, "not known") {
		t.Errorf("a version 7 recording: safe %d, unreserved in %.0f s, %q: want both unknown, and said", s.SafeBytes, s.UnreservedInS, s.Text)
	}

	// The same window under max_slot_wal_keep_size = 1 GB.
	withKeep(rec, 1<<30)
	s = Of(rec, "lab_sub")
	want := float64(1<<30-s.RetainedBytes) / s.GrowthBps
	if math.Abs(s.UnreservedInS-want) > 0.01 || !strings.Contains(s.Text, "unreserved) in about") || !strings.Contains(s.Model, "linear") {
		t.Errorf("unreserved in %.1f s (%q, model %q), want %.1f s: the reserve over the net growth", s.UnreservedInS, s.Text, s.Model, want)
	}
	// And with no limit set (safe_wal_size NULL).
	for i := range rec.Ticks {
		for j := range rec.Ticks[i].Read(sample.PublisherNode).Slots {
			rec.Ticks[i].Read(sample.PublisherNode).Slots[j].SafeWALSize = nil
		}
	}
	if s = Of(rec, "lab_sub"); s.UnreservedInS != -1 || !strings.Contains(s.Text, "nothing caps it") {
		t.Errorf("%+v: want no forecast and 'nothing caps it'", s)
	}
}

// Past the limit safe_wal_size is negative: the slot is unreserved now.
func TestASlotPastItsLimitIsUnreservedNow(t *testing.T) {
	rec := load(t, "stalled-pg16-diag")
	withKeep(rec, 64<<20) // far less than the 218 MB it retains
	s := Of(rec, "lab_sub")
	if s.UnreservedInS != 0 || s.SafeBytes != 0 || !strings.Contains(s.Text, "next checkpoint invalidates") {
		t.Errorf("%+v: want unreserved now", s)
	}
}

// A caught-up slot and a draining one are not growing: no figure.
func TestACaughtUpOrDrainingSlotIsNotGrowing(t *testing.T) {
	for name, says := range map[string]string{"caught-up-pg16-diag": "not growing", "network-pg16-diag": "shrinking", "open-txn-pg16-diag": "not growing"} {
		rec := load(t, name)
		withKeep(rec, 1<<30)
		s := Of(rec, "lab_sub")
		if s == nil || s.Growing || s.UnreservedInS != -1 || !strings.Contains(s.Text, says) {
			t.Errorf("%s: %+v, want %q and no forecast", name, s, says)
		}
	}
}

// A lost slot has no forecast (the stopped path's cause says it).
func TestALostSlotHasNoForecast(t *testing.T) {
	if s := Of(load(t, "lost-slot-pg15-diag"), "lab_sub"); s != nil {
		t.Errorf("%+v, want nil", s)
	}
}

// What does not apply is null in the JSON and reads back as -1.
func TestNotApplyingIsNull(t *testing.T) {
	s := Of(load(t, "caught-up-pg16-diag"), "lab_sub")
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"safe_wal_size":null`) || !strings.Contains(string(b), `"unreserved_in_s":null`) {
		t.Errorf("%s: want nulls", b)
	}
	var back Slot
	if err := json.Unmarshal(b, &back); err != nil || back.SafeBytes != -1 || back.UnreservedInS != -1 {
		t.Errorf("read back %+v (%v), want -1s", back, err)
	}
}

// The lab's slot-filling state as recorded (15.18 and 16.14: version 8,
// safe_wal_size read): the forecast is the reserve over the net growth,
// and the disk holding pg_wal outlasts the reserve.
func TestARecordedFillingSlotIsForecastFromItsReserve(t *testing.T) {
	for _, name := range []string{"slot-filling-pg15-diag", "slot-filling-pg16-diag"} {
		s := Of(load(t, name), "lab_sub")
		if s == nil || !s.Growing || s.SafeBytes <= 0 || s.ReleasedBps != 0 {
			t.Fatalf("%s: %+v, want a growing slot under max_slot_wal_keep_size, nothing released", name, s)
		}
		if want := float64(s.SafeBytes) / s.GrowthBps; math.Abs(s.UnreservedInS-want) > 0.01 || s.UnreservedInS < 30 || s.UnreservedInS > 90 {
			t.Errorf("%s: unreserved in %.1f s, want %.1f s (safe_wal_size / growth; the lab's 192MB at 2.5 MB/s: about a minute)", name, s.UnreservedInS, want)
		}
		if s.DiskFreeBytes <= 0 || s.DiskFullInS <= s.UnreservedInS || !strings.Contains(s.Text, "more than the slot may still take") {
			t.Errorf("%s: disk %d bytes free, full in %.0f s: %q", name, s.DiskFreeBytes, s.DiskFullInS, s.Text)
		}
	}
}

// 18.4's big-txn-decoding whose decoding ended at the last tick: a
// keepalive moved confirmed_flush_lsn 1.2 GB while the transaction held
// restart_lsn. Of takes that for WAL released; OfHeld releases only what
// restart_lsn did (nothing).
func TestATransactionInFlightReleasesNothing(t *testing.T) {
	rec := load(t, "big-txn-decoding-pg18-diag-ended")
	if s := Of(rec, "lab_sub"); s.ReleasedBps < 100e6 {
		t.Fatalf("Of released %.0f B/s, want the confirmed rate (over 100 MB/s) this test is about", s.ReleasedBps)
	}
	s := OfHeld(rec, "lab_sub", "a large transaction in flight holds restart_lsn")
	if s.ReleasedBps != 0 || s.Growing || strings.Contains(s.Text, "shrinking") || !strings.Contains(s.Text, "released 0 B/s") {
		t.Errorf("OfHeld: released %.0f B/s, growing %v, text %q: want nothing released", s.ReleasedBps, s.Growing, s.Text)
	}
	if !strings.Contains(s.Model, "holds restart_lsn") {
		t.Errorf("model %q, want what holds restart_lsn", s.Model)
	}
}
