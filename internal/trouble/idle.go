package trouble

import (
	"fmt"
	"time"

	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/units"
)

// idle fills the idle-timeout forecast from the window's last read of the
// slot: PostgreSQL 18 invalidates a slot that has been inactive longer
// than idle_replication_slot_timeout, at the first checkpoint after
// (timed checkpoints come every checkpoint_timeout; the docs' "Slot
// invalidation due to idle timeout occurs during checkpoint").
func idle(s *Slot, b sample.Slot) {
	if b.IdleTimeoutS == nil {
		return
	}
	s.IdleTimeoutS = *b.IdleTimeoutS
	if s.IdleTimeoutS <= 0 || b.Active || b.InactiveSince == nil {
		return
	}
	since := *b.InactiveSince
	s.InactiveSince = &since
	s.IdleInS = max(since.Add(seconds(s.IdleTimeoutS)).Sub(s.At).Seconds(), 0)
}

// idleText says the idle-timeout forecast ("" when it does not apply).
func idleText(s *Slot) string {
	if s.IdleInS < 0 {
		return ""
	}
	since := clock(s.At, s.InactiveSince.Sub(s.At).Seconds())
	if s.IdleInS == 0 {
		return fmt.Sprintf(" Inactive since %s, longer than idle_replication_slot_timeout (%s): the publisher's next checkpoint invalidates the slot (idle_timeout).",
			since, units.FormatSeconds(s.IdleTimeoutS))
	}
	return fmt.Sprintf(" Inactive since %s: idle_replication_slot_timeout (%s) runs out in about %s, at %s, and the first checkpoint after that invalidates the slot (idle_timeout) unless its subscriber connects.",
		since, units.FormatSeconds(s.IdleTimeoutS), units.FormatSeconds(s.IdleInS),
		clock(s.At, s.IdleInS))
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// clock is the moment in seconds after at, as a reader's clock shows it
// (UTC): the time of day within 20 hours of at, with the date beyond.
func clock(at time.Time, in float64) string {
	t := at.Add(seconds(in)).UTC()
	if in > 20*3600 || in < -20*3600 || t.YearDay() != at.UTC().YearDay() {
		return t.Format("2006-01-02 15:04 UTC")
	}
	return t.Format("15:04:05 UTC")
}
