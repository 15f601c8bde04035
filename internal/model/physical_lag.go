package model

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/units"
)

// A physical path's lag never reads pg_last_xact_replay_timestamp(): an
// idle primary commits nothing, so now() minus it grows without bound while
// nothing is left to replay. Its lag is the WAL behind, in bytes per
// stage, and in time what the rates say of those bytes.

// StageLag is the WAL waiting at one stage of a physical path at the
// window's end: bytes, and the time the primary took to write them at its
// rate in the window (unknown when the primary writes under StillRate).
type StageLag struct {
	Stage   StageName         `json:"stage"`
	Bytes   int64             `json:"bytes"`
	Seconds Optional[float64] `json:"seconds"`
}

// PhysicalLag is a physical path's lag per stage: the WAL not yet sent
// (at the walsender), in flight (on the link: sent, not received) and
// received not replayed (at the startup process); a stage whose bytes are
// unknown (its node not observed) is left out.
func PhysicalLag(p measure.Physical) []StageLag {
	var out []StageLag
	for _, s := range []struct {
		name  StageName
		bytes int64
	}{{StageWalsender, p.Unsent}, {StageLink, p.InFlight}, {StageReplay, p.Unreplayed}} {
		if s.bytes < 0 {
			continue
		}
		l := StageLag{Stage: s.name, Bytes: s.bytes}
		switch {
		case s.bytes == 0:
			l.Seconds = Known(0.0)
		case p.Generated >= StillRate:
			l.Seconds = Known(float64(s.bytes) / p.Generated)
		}
		out = append(out, l)
	}
	return out
}

// PhysicalLagTime is a physical path's lag in time. Nothing behind is 0 s
// and 0 bytes, and so is an idle primary's last few records (IdleLag) on
// their way. Otherwise, while the primary writes (StillRate or more),
// the WAL behind divided by its rate: how long ago the primary wrote the
// oldest WAL not replayed (model: a constant WAL rate; it holds during a
// stall, when replay stands still and the time columns of
// pg_stat_replication understate it). On an idle primary, the time replay
// takes to drain it at its rate (DrainS); with neither rate, at least the
// window when the backlog did not drain.
func PhysicalLagTime(p measure.Physical) LagTime {
	var lt LagTime
	behind := p.Behind()
	if s := p.Sender; s != nil && s.ReplayLagS != nil {
		lt.FlushLagS = Known(*s.ReplayLagS)
	}
	switch {
	case behind < 0:
		return lt
	case behind == 0:
		lt.Seconds, lt.DrainS = Known(0.0), Known(0.0)
		lt.Text = "lag in time: 0 s: everything the primary wrote is replayed (whatever now() - pg_last_xact_replay_timestamp() says: an idle primary commits nothing)"
		return lt
	case behind <= IdleLag && p.Generated < StillRate:
		// An idle primary's last records (a running-xacts record every
		// 15 s) caught between two reads: nothing waits for replay.
		lt.Seconds, lt.DrainS = Known(0.0), Known(0.0)
		lt.Text = fmt.Sprintf("lag in time: 0 s: %s behind, an idle primary's last records on their way (under IdleLag; whatever now() - pg_last_xact_replay_timestamp() says)", bytesText(behind))
		return lt
	}
	if p.Replayed >= StillRate {
		lt.DrainS = Known(float64(behind) / p.Replayed)
	}
	switch {
	case p.Generated >= StillRate:
		lt.Seconds = Known(float64(behind) / p.Generated)
		lt.Text = fmt.Sprintf("lag in time: about %s: %s behind at the %s the primary writes (model: the WAL behind over the WAL rate, the age of the oldest WAL not replayed)",
			secs(float64(behind)/p.Generated), bytesText(behind), units.FormatRate(p.Generated))
	case p.Replayed >= StillRate:
		lt.Seconds = lt.DrainS
		lt.Text = fmt.Sprintf("lag in time: about %s: %s behind at the %s replay drains it (the primary writes next to nothing)",
			secs(float64(behind)/p.Replayed), bytesText(behind), units.FormatRate(p.Replayed))
	case p.UnreplayedStart > 0 || p.Unsent > 0:
		lt.Seconds = Known(p.WindowS)
		lt.Text = fmt.Sprintf("lag in time: at least %s: %s behind did not move during the window", secs(p.WindowS), bytesText(behind))
	}
	return lt
}

// CatchUpForecast is when the standby catches up: the WAL behind over
// replay's rate less the primary's (model: both rates stay as they were in
// the window), in a sentence and in seconds; "never at this rate" when
// replay is not faster than the primary writes. Empty and 0 when nothing
// is behind beyond what a path keeps on its way (IdleLag: a synchronous
// standby 4 kB behind with rates a few percent apart is not "never"), or
// its size is unknown. Of a path judged v replay-read-io while the primary
// writes a tenth of replay's rate or more, the sentence says what the lab
// found of that model there (readBoundWhileWriting).
func CatchUpForecast(v VerdictName, p measure.Physical) (string, float64) {
	text, s := catchUpForecast(p)
	if s > 0 && v == ReplayReadIO && p.Generated >= max(StillRate, writingShare*p.Replayed) {
		text += readBoundWhileWriting
	}
	return text, s
}

// writingShare is the least WAL rate, as a share of replay's, at which a
// read-bound forecast is qualified: the lab's loads that broke it wrote
// 30-50% of replay's rate; its released backlogs, where it held, under 2%.
const writingShare = 0.1

// readBoundWhileWriting qualifies a forecast for replay that waits on
// data file reads while the primary keeps writing: in the lab (15.18,
// 18.4) replay ran 2-3x slower on the WAL written after it resumed than
// on the backlog its window saw, and the forecast came out 3-4x short
// (docs/whatif.md, "Not met").
const readBoundWhileWriting = "; replay waits on data file reads while the primary writes: in the lab such a forecast came out 3-4x too short (replay ran 2-3x slower on the WAL written after it resumed than on the backlog a window saw): take it as the least time"

// catchUpForecast is CatchUpForecast's model.
func catchUpForecast(p measure.Physical) (string, float64) {
	behind := p.Behind()
	if behind <= IdleLag {
		return "", 0
	}
	net := p.Replayed - p.Generated
	switch {
	case p.Replayed < StillRate && p.Generated < StillRate:
		return "never at this rate: replay does not advance (nor does the primary write)", 0
	case p.Replayed < StillRate:
		return fmt.Sprintf("never at this rate: replay does not advance while the primary writes %s", units.FormatRate(p.Generated)), 0
	case net <= 0:
		return fmt.Sprintf("never at this rate: replay (%s) is not faster than the primary writes (%s): falling behind by %s",
			units.FormatRate(p.Replayed), units.FormatRate(p.Generated), units.FormatRate(-net)), 0
	}
	s := float64(behind) / net
	return fmt.Sprintf("catching up in about %s: %s behind / (replayed %s - generated %s = %s net) (model: both rates stay as in the window)",
		secs(s), bytesText(behind), units.FormatRate(p.Replayed), units.FormatRate(p.Generated), units.FormatRate(net)), s
}

// bytesText prints bytes (units.FormatBytes).
func bytesText(n int64) string { return units.FormatBytes(float64(n)) }

// PhysicalSlot is a physical slot's time to trouble: the WAL it retains
// on the primary, how fast that grows, and with max_slot_wal_keep_size set
// when its WAL stops being reserved (safe_wal_size over the growth; a
// checkpoint then removes it and the standby needs a new base backup).
type PhysicalSlot struct {
	Slot          string  `json:"slot"`
	RetainedBytes int64   `json:"retained_bytes"`
	WrittenBps    float64 `json:"written_bytes_per_s"`
	ReleasedBps   float64 `json:"released_bytes_per_s"`
	GrowthBps     float64 `json:"growth_bytes_per_s"`
	// SafeBytes is safe_wal_size (-1: NULL, no max_slot_wal_keep_size).
	SafeBytes int64 `json:"safe_wal_size"`
	// UnreservedInS is when safe_wal_size runs out at the growth (-1: not
	// growing, or no limit).
	UnreservedInS float64 `json:"unreserved_in_s"`
	Model         string  `json:"model"`
	Text          string  `json:"text"`
}

// PhysicalSlotTrouble is the physical path's slot's time to trouble (nil:
// no slot read twice). Model: linear, safe_wal_size over the WAL written
// less the WAL the slot released (its restart_lsn's advance, which
// follows what the standby flushed) over the window.
func PhysicalSlotTrouble(p measure.Physical) *PhysicalSlot {
	s := p.Slot
	if s == nil || s.SpanS <= 0 {
		return nil
	}
	out := &PhysicalSlot{Slot: s.Last.Name, RetainedBytes: max(s.LastCurrent.Sub(s.Last.RestartLSN), 0), SafeBytes: -1, UnreservedInS: -1,
		WrittenBps:  sample.Advance(s.LastCurrent, s.FirstCurrent) / s.SpanS,
		ReleasedBps: sample.Advance(s.Last.RestartLSN, s.First.RestartLSN) / s.SpanS,
		Model:       fmt.Sprintf("linear: safe_wal_size / (WAL written - WAL the slot released) over the window's %s", secs(s.SpanS))}
	out.GrowthBps = out.WrittenBps - out.ReleasedBps
	if s.Last.SafeWALSize != nil {
		out.SafeBytes = max(*s.Last.SafeWALSize, 0)
	}
	growing := out.GrowthBps >= StillRate
	text := fmt.Sprintf("physical slot %q retains %s of WAL", s.Last.Name, bytesText(out.RetainedBytes))
	switch {
	case out.SafeBytes == 0:
		out.UnreservedInS = 0
		text += ": its WAL is no longer reserved (safe_wal_size 0): the next checkpoint may remove WAL the standby still needs"
	case out.SafeBytes > 0 && growing:
		out.UnreservedInS = float64(out.SafeBytes) / out.GrowthBps
		text += fmt.Sprintf(", growing %s: its WAL stops being reserved in about %s (safe_wal_size %s; %s)", units.FormatRate(out.GrowthBps), secs(out.UnreservedInS), bytesText(out.SafeBytes), out.Model)
	case growing:
		text += fmt.Sprintf(", growing %s with no max_slot_wal_keep_size: pg_wal grows until the standby catches up", units.FormatRate(out.GrowthBps))
	default:
		text += ", not growing over the window"
	}
	out.Text = text
	return out
}
