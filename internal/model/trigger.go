package model

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/units"
)

// triggerFactor is disable-trigger's factor on the apply worker: its
// capacity without the trigger is the WAL it writes per byte sent at
// Calibration.ApplyCostPerWAL; without the subscriber's WAL, or when that comes out
// slower than today, a sleeping trigger's sleep (Timeout waits) is what
// it saves at least (bound), since each sleep costs CPU of its own that
// counts as work here (the lab: the drain was 5.6-7.4x that bound).
func triggerFactor(p Path, st Stage) (f float64, model string, bound, applies bool) {
	if p.Limit != StageApply {
		return 0, "", false, false
	}
	// Own is capped by what /proc leaves outside CPU and run queue: a
	// sleep's probes beyond it are stale.
	sleep := min(p.Apply.TypeShares["Timeout"], max(st.Own, 0))
	var lower float64
	if sleep >= Sleeping && st.Known() && st.Utilisation-sleep >= minWork {
		lower = st.Utilisation / (st.Utilisation - sleep)
	}
	w, c := p.SubWALPerSent, p.calibration()
	if w > 0 && st.Known() && st.Utilisation > 0 {
		if f := 1 / (c.ApplyCostPerWAL * w) / capacity(p, st); f > max(lower, 1) {
			return f, fmt.Sprintf("without the trigger the apply worker's work follows the WAL it writes: %.1fx the WAL it was sent today, at about %.0f ms of its time per MB written (measured in lagscope's lab on %s: a faster core takes less; WAL the trigger writes itself makes the figure low)",
				w, msPerMB(c.ApplyCostPerWAL), c.Machine), false, true
		}
	}
	switch {
	case lower > 0:
		return lower, fmt.Sprintf("the apply worker slept (Timeout waits) %s of the window, in the trigger; without it its work takes %s of today's time",
			units.Percent(sleep), units.Percent((st.Utilisation-sleep)/st.Utilisation)), true, true
	case w > 0:
		return 0, fmt.Sprintf("the apply worker already applies faster than it would at about %.0f ms per MB of WAL written (lagscope's lab, %s): the trigger's share of its time cannot be told from it", msPerMB(c.ApplyCostPerWAL), c.Machine), false, true
	case sleep >= Sleeping && st.Known():
		return 0, fmt.Sprintf("the apply worker slept %s of the window; what it did besides is too little to measure, and the WAL the subscriber wrote was not read", units.Percent(sleep)), false, true
	}
	return 0, "the trigger's share of the apply worker's time is not measured: the WAL the subscriber wrote per byte sent was not read", false, true
}
