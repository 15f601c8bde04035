package model

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/measure"
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
// and 0 bytes. Otherwise, while the primary writes (StillRate or more),
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
// is behind, or its size is unknown.
func CatchUpForecast(p measure.Physical) (string, float64) {
	behind := p.Behind()
	if behind <= 0 {
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
