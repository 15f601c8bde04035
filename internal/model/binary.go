package model

import (
	"fmt"
	"strings"

	"github.com/lagscope/lagscope/internal/audit"
)

// binaryFactor is binary=on's factor on the apply worker. Binary transfer
// saves the columns' input functions, whose share of the apply worker's CPU
// would show as its CPU per byte of WAL written above the lab's calibrated
// figure. Where that excess is within the lab's spread, the factor is 1
// (nothing to save); where there is more, no figure: the excess is the
// time the model cannot attribute (a CHECK constraint's function, an
// expression index, a trigger cost the same way), and lagscope has not
// measured which column types' input functions cost that much, so it is
// never put down to them.
func binaryFactor(p Path, st Stage) (float64, string, bool) {
	if p.Limit != StageApply {
		return 0, "", false
	}
	w, c := p.SubWALPerSent, p.calibration()
	switch {
	case w <= 0 || !st.Known() || st.Utilisation <= 0:
		return 0, "its gain is the columns' input functions' share of the apply worker's CPU, which shows against the WAL the subscriber writes: that was not read", true
	case p.Setup.has(audit.CheckReplicaTriggers) || p.Setup.has(audit.CheckFullIdentityNoIndex):
		return 0, "the apply worker's CPU beyond the WAL it writes goes to the trigger or the scans of FULL rows too: the input functions' share of it is not known", true
	}
	// Busy (CPU and run queue), not Utilisation: binary transfer saves
	// CPU, and c was calibrated on windows with little else (own waits
	// under 10%).
	per := st.Busy / (p.Drain * w)
	extra := per - c.ApplyCostPerWAL
	if extra <= c.BinaryResolution*c.ApplyCostPerWAL {
		return 1, fmt.Sprintf("the apply worker's CPU per MB of WAL it writes, %.0f ms, is no more than with binary transfer in the lab (about %.0f ms): the input functions cost too little on these columns to show", msPerMB(per), msPerMB(c.ApplyCostPerWAL)), true
	}
	others := "the setup shows nothing else that costs it per row, but that does not make it the input functions'"
	if p.Setup != nil && len(p.Setup.Costs.Sources) > 0 {
		others = "the setup names " + strings.Join(names(p.Setup.Costs.Sources), ", ") + ", which cost it per row the same way"
	} else if p.Setup != nil && !p.Setup.Costs.Read {
		others = "the subscribed tables' constraints and generated columns were not read"
	}
	return 0, fmt.Sprintf("the apply worker's CPU per MB of WAL it writes, %.0f ms, is %.0f ms above binary transfer's in the lab (about %.0f ms, %s), but that excess is not attributed to the columns' input functions: lagscope has not measured which column types' input functions cost that much, and %s",
		msPerMB(per), msPerMB(extra), msPerMB(c.ApplyCostPerWAL), c.Machine, others), true
}
