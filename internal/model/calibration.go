package model

// Calibration is a named profile of the figures lagscope measured in a lab
// and the predictions rest on: what the apply worker's time per byte of
// WAL costs when nothing else holds it, and what a subscriber writes per
// byte sent without extra indexes. A faster core takes less, so the
// figures are one machine's; the sentences that cite them ("measured in
// lagscope's lab on a 2-vCPU VM") take the figures and the machine from
// the profile. Where it comes from, and how the predictions met the lab's
// measurements: docs/whatif.md.
type Calibration struct {
	// Name names the profile ("lab 2-vCPU VM 2026-11").
	Name string
	// Machine is the machine the figures were measured on, as a sentence
	// names it ("a 2-vCPU VM").
	Machine string
	// ApplyCostPerWAL is the apply worker's time per byte of WAL it
	// writes, seconds, when nothing but its own work holds it.
	ApplyCostPerWAL float64
	// IdleWakeCost is the most an idle apply worker's time per byte of
	// WAL written may be for its wakes alone, seconds; beyond it the time
	// goes to something else (a trigger, scans of FULL rows), which the
	// calibrated cost knows nothing of.
	IdleWakeCost float64
	// BaseWALPerSent is the subscriber's WAL per byte sent without an
	// extra index, on the lab's UPDATE load.
	BaseWALPerSent float64
	// BinaryResolution is the share by which the apply worker's CPU per
	// byte of WAL written must exceed ApplyCostPerWAL before binary = true
	// is predicted to save any of it: how far the lab's own windows spread.
	BinaryResolution float64
}

// LabVM2026 is the profile measured on this project's lab, a 2-vCPU VM
// with the subscriber pinned to one, in November 2026:
//
//   - ApplyCostPerWAL about 30 ms per MB, whatever the table, its indexes
//     and the version (29.8-34.9 ms over the recordings of trigger-free
//     windows on 15, 16 and 18 in which the subscriber's WAL was read,
//     26.7-31.6 in the drains after disable-trigger);
//   - IdleWakeCost 2 ApplyCostPerWAL (the lab saw 32-58 ms per MB at
//     2 MB/s; a trigger computing took 345-366 ms per MB, the scans of
//     FULL rows without an index more);
//   - BaseWALPerSent 1.24 (1.23x on 16.14, 1.25x on 15.18);
//   - BinaryResolution 0.25: the lab's windows with binary transfer came
//     out at 22.8-36.4 ms per MB on one machine in one evening, up to
//     1.21x the cost, as the shared host's speed moved.
var LabVM2026 = Calibration{
	Name:             "lab 2-vCPU VM 2026-11",
	Machine:          "a 2-vCPU VM",
	ApplyCostPerWAL:  30e-3 / 1e6,
	IdleWakeCost:     2 * 30e-3 / 1e6,
	BaseWALPerSent:   1.24,
	BinaryResolution: 0.25,
}

// DefaultCalibration is the profile the model uses when its input names
// none (a zero Calibration): LabVM2026.
var DefaultCalibration = LabVM2026

// orDefault is c, or DefaultCalibration for the zero profile.
func (c Calibration) orDefault() Calibration {
	if c.Name == "" {
		return DefaultCalibration
	}
	return c
}

// ApplyCostOf is an apply stage's time per byte of WAL the subscriber
// wrote, seconds: its work over the drain (bytes sent a second) times the
// WAL written per byte sent; 0 when either is unknown.
func ApplyCostOf(s Stage, drain, subWALPerSent float64) float64 {
	if !s.Known() || s.Utilisation <= 0 || drain <= 0 || subWALPerSent <= 0 {
		return 0
	}
	return s.Work() / (drain * subWALPerSent)
}

// IdleApplyCapacity is the rate, bytes sent per second, at which an apply
// stage under IdleWork busy saturates when the subscriber's WAL per byte
// sent was read: that WAL written at c's ApplyCostPerWAL, where that is
// more than drain / Work and its time per byte is within IdleWakeCost (an
// idle worker's time per byte carries the cost of its wakes). 0 when it
// does not apply.
func (c Calibration) IdleApplyCapacity(s Stage, drain, subWALPerSent float64) float64 {
	if s.Name != StageApply || s.Utilisation >= IdleWork {
		return 0
	}
	if k := ApplyCostOf(s, drain, subWALPerSent); k > c.ApplyCostPerWAL && k <= c.IdleWakeCost {
		return 1 / (c.ApplyCostPerWAL * subWALPerSent)
	}
	return 0
}

// msPerMB is a time per byte, seconds, in ms per MB.
func msPerMB(secondsPerByte float64) float64 { return secondsPerByte * 1e9 }
