package trouble

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/units"
	"github.com/lagscope/lagscope/internal/unknown"
)

// Model parameters, each with its reason.
const (
	// SteadyShare: a net growth under this share of the WAL written is
	// called steady. A caught-up slot confirms in steps (every feedback
	// message, every running-xacts record), so one window's confirmed and
	// written rates differ by a few percent without any growth (lab
	// caught-up windows on 15 and 16).
	SteadyShare = 0.10
	// MinGrowth is the smallest net growth, in bytes/s, worth a figure:
	// under it an idle server's own records move the positions.
	MinGrowth = 1024
)

// Slot is a slot's time to trouble at the end of a window.
type Slot struct {
	Slot string `json:"slot"`
	// At is the last position read, the moment the forecast starts from.
	At time.Time `json:"at"`
	// RetainedBytes is the WAL the slot holds: the publisher's position
	// minus restart_lsn.
	RetainedBytes int64 `json:"retained_bytes"`
	// WrittenBps is the WAL the publisher wrote, ReleasedBps the rate the
	// slot lets WAL go (how its restart_lsn follows), GrowthBps their
	// difference: the retained WAL's net growth. Over WindowS seconds.
	WrittenBps  float64 `json:"written_bytes_per_s"`
	ReleasedBps float64 `json:"released_bytes_per_s"`
	GrowthBps   float64 `json:"growth_bytes_per_s"`
	WindowS     float64 `json:"window_s"`
	// Growing is false when the net growth is steady or negative.
	Growing bool `json:"growing"`
	// SafeBytes is safe_wal_size at At: how much WAL the publisher may
	// write before the slot's WAL is no longer reserved; -1 (null) when the
	// server has no max_slot_wal_keep_size.
	SafeBytes int64 `json:"safe_wal_size" jsonschema:"nullable"`
	// UnreservedInS is how long after At wal_status becomes unreserved at
	// the net growth (the slot is invalidated at the checkpoint after); -1
	// (null) when not growing or nothing caps the WAL; 0 when already.
	UnreservedInS float64 `json:"unreserved_in_s" jsonschema:"nullable"`
	// IdleTimeoutS is the server's idle_replication_slot_timeout (18+; 0
	// when off), -1 (null) when not read. IdleInS is how long after At an
	// inactive slot has been inactive that long (the first checkpoint
	// after invalidates it, reason idle_timeout): 0 when already, -1
	// (null) while the slot is active, the timeout off or not read.
	IdleTimeoutS float64 `json:"idle_timeout_s" jsonschema:"nullable"`
	IdleInS      float64 `json:"idle_timeout_in_s" jsonschema:"nullable"`
	// DiskFreeBytes is the free space of the file system holding the
	// publisher's pg_wal at the window's end (where lagscope runs on its
	// host), -1 (null) when not read. DiskFullInS is how long the retained
	// WAL's net growth takes to fill it: -1 (null) when not read or not
	// growing; 0 when it is full.
	DiskFreeBytes int64   `json:"disk_free_bytes" jsonschema:"nullable"`
	DiskFullInS   float64 `json:"disk_full_in_s" jsonschema:"nullable"`
	// InactiveSince is when the slot was last released (17+), nil while
	// it is active.
	InactiveSince *time.Time `json:"inactive_since,omitempty"`
	// WALStatus is the slot's wal_status at At.
	WALStatus string `json:"wal_status"`
	// capRead is whether the samples read safe_wal_size (recording
	// version 8+): without it a nil one says nothing.
	capRead bool
	// Model names what the figures extrapolate; Text says it for a reader.
	Model string `json:"model"`
	Text  string `json:"text"`
}

// MarshalJSON writes the figures that do not apply as null.
func (s Slot) MarshalJSON() ([]byte, error) {
	type plain Slot
	return unknown.Marshal(plain(s), "safe_wal_size", "unreserved_in_s", "idle_timeout_s", "idle_timeout_in_s", "disk_free_bytes", "disk_full_in_s")
}

// UnmarshalJSON reads null back as -1.
func (s *Slot) UnmarshalJSON(b []byte) error {
	type plain Slot
	p := plain{SafeBytes: -1, UnreservedInS: -1, IdleTimeoutS: -1, IdleInS: -1, DiskFreeBytes: -1, DiskFullInS: -1}
	if err := json.Unmarshal(b, &p); err != nil { // null leaves -1
		return err
	}
	*s = Slot(p)
	return nil
}

// Of forecasts slot's trouble from the recording's ticks; nil when fewer
// than two ticks read the slot, or it is already lost.
func Of(rec *sample.Recording, slot string) *Slot {
	return of(rec, slot, "")
}

// OfHeld is Of for a slot whose restart_lsn something named by held keeps
// back whatever is confirmed (a large transaction in flight): what the slot
// releases is restart_lsn's own advance over the window, not the confirmed
// rate (which a keepalive can move by a whole transaction's WAL).
func OfHeld(rec *sample.Recording, slot, held string) *Slot {
	return of(rec, slot, held)
}

func of(rec *sample.Recording, slot, held string) *Slot {
	first, last := ends(rec, slot)
	if first == nil || last == nil {
		return nil
	}
	a, b := first.slot(), last.slot()
	if b.WALStatus == "lost" || b.Invalidation != "" {
		return nil
	}
	span := last.tick.At.Sub(first.tick.At).Seconds()
	s := &Slot{Slot: slot, At: last.tick.At, RetainedBytes: last.tick.Read(sample.PublisherNode).CurrentLSN.Sub(b.RestartLSN), WindowS: span,
		WALStatus: b.WALStatus, SafeBytes: -1, UnreservedInS: -1, IdleTimeoutS: -1, IdleInS: -1, DiskFreeBytes: -1, DiskFullInS: -1, capRead: rec.Version >= 8}
	idle(s, b)
	if b.SafeWALSize != nil {
		s.SafeBytes = max(*b.SafeWALSize, 0) // negative once past the limit
	}
	s.WrittenBps = sample.Advance(last.tick.Read(sample.PublisherNode).CurrentLSN, first.tick.Read(sample.PublisherNode).CurrentLSN) / span
	// restart_lsn follows confirmed_flush_lsn in steps (at the
	// running-xacts records the walsender decodes, 15 s of the load that
	// wrote them apart: hundreds of MB while a backlog drains), so the
	// confirmed rate is what the slot releases over time. A transaction
	// held open keeps restart_lsn back whatever is confirmed: the
	// large-transaction verdict names that case.
	released := sample.Advance(b.ConfirmedFlush, a.ConfirmedFlush) / span
	basis := "restart_lsn follows confirmed_flush_lsn"
	switch {
	case held != "":
		released, basis = sample.Advance(b.RestartLSN, a.RestartLSN)/span, held
	case released == 0:
		basis = "confirmed_flush_lsn stood still"
	}
	s.ReleasedBps = released
	s.GrowthBps = s.WrittenBps - s.ReleasedBps
	s.Growing = s.GrowthBps >= MinGrowth && s.GrowthBps >= SteadyShare*s.WrittenBps
	switch {
	case s.SafeBytes == 0, s.WALStatus == "unreserved":
		s.UnreservedInS = 0
	case s.Growing && s.SafeBytes > 0:
		s.UnreservedInS = float64(s.SafeBytes) / s.GrowthBps
	}
	s.Model = fmt.Sprintf("linear: safe_wal_size / (WAL written - WAL the slot released) over the window's %.1f s (%s)", span, basis)
	disk(s, rec)
	s.Text = text(s, basis) + diskText(s) + idleText(s)
	return s
}

// text says the forecast for a reader.
func text(s *Slot, basis string) string {
	held := "retains " + units.FormatBytes(float64(s.RetainedBytes)) + " of WAL"
	if s.UnreservedInS == 0 {
		return fmt.Sprintf("%s, beyond max_slot_wal_keep_size (wal_status %s): the publisher's next checkpoint invalidates the slot, and its subscription must then be re-created.",
			held, s.WALStatus)
	}
	if -s.GrowthBps >= MinGrowth && -s.GrowthBps >= SteadyShare*s.WrittenBps {
		return fmt.Sprintf("%s, shrinking over the window's %.1f s: the slot releases WAL (%s) faster than the publisher writes it (%s).",
			held, s.WindowS, units.FormatRate(s.ReleasedBps), units.FormatRate(s.WrittenBps))
	}
	if !s.Growing {
		return fmt.Sprintf("%s, not growing over the window's %.1f s (the publisher wrote %s, the slot released %s).",
			held, s.WindowS, units.FormatRate(s.WrittenBps), units.FormatRate(s.ReleasedBps))
	}
	growth := fmt.Sprintf("growing %s net over the window's %.1f s (WAL written %s, released %s: %s)",
		units.FormatRate(s.GrowthBps), s.WindowS, units.FormatRate(s.WrittenBps), units.FormatRate(s.ReleasedBps), basis)
	if s.SafeBytes < 0 && !s.capRead {
		return fmt.Sprintf("%s, %s; the samples predate lagscope reading safe_wal_size, so whether max_slot_wal_keep_size caps it is not known.",
			held, growth)
	}
	if s.SafeBytes < 0 {
		return fmt.Sprintf("%s, %s; nothing caps it (max_slot_wal_keep_size = -1): the publisher's pg_wal grows %s an hour until the slot is consumed or its disk is full.",
			held, growth, units.FormatBytes(3600*s.GrowthBps))
	}
	return fmt.Sprintf("%s, %s: the slot's WAL stops being reserved (wal_status unreserved) in about %s, at %s, once the %s left under max_slot_wal_keep_size (safe_wal_size) are written; the checkpoint after that invalidates the slot.",
		held, growth, units.FormatSeconds(s.UnreservedInS), clock(s.At, s.UnreservedInS),
		units.FormatBytes(float64(s.SafeBytes)))
}

// read is a tick that read a slot.
type read struct {
	tick *sample.Tick
	i    int
}

func (r *read) slot() sample.Slot { return r.tick.Read(sample.PublisherNode).Slots[r.i] }

// ends finds the first and last ticks that read slot.
func ends(rec *sample.Recording, slot string) (first, last *read) {
	for i := range rec.Ticks {
		t := &rec.Ticks[i]
		if !t.Read(sample.PublisherNode).OK {
			continue
		}
		for j := range t.Read(sample.PublisherNode).Slots {
			if t.Read(sample.PublisherNode).Slots[j].Name == slot {
				r := &read{tick: t, i: j}
				if first == nil {
					first = r
				}
				last = r
			}
		}
	}
	if first == last {
		return nil, nil
	}
	return first, last
}
