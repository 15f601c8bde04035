package model

import "fmt"

// binaryFactor is binary=on's factor on the apply worker: the part of its
// CPU per byte of WAL written above the lab's calibrated figure, which at
// most is the columns' input functions'.
func binaryFactor(p Path, st Stage) (float64, string, bool) {
	if p.Limit != StageApply {
		return 0, "", false
	}
	w, c := p.SubWALPerSent, p.calibration()
	switch {
	case w <= 0 || !st.Known() || st.Utilisation <= 0:
		return 0, "its gain is the columns' input functions' share of the apply worker's CPU, which shows against the WAL the subscriber writes: that was not read", true
	case p.Setup.has(checkReplicaTriggers) || p.Setup.has(checkFullIdentityNoIndex):
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
	return st.Utilisation / (st.Utilisation - extra*p.Drain*w), fmt.Sprintf("the apply worker's CPU per MB of WAL it writes, %.0f ms, is %.0f ms above binary transfer's in the lab (about %.0f ms, %s): at most that is the input functions', which binary transfer saves",
		msPerMB(per), msPerMB(extra), msPerMB(c.ApplyCostPerWAL), c.Machine), true
}
