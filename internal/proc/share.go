package proc

import "time"

// Share returns how much of one CPU core the process used over the wall time
// between prev and cur: cpu is the fraction it spent running, runq the fraction
// it spent runnable but waiting for a CPU. Both are ≥ 0; cpu is at most about 1
// for a single-threaded process, runq can exceed 1 only for several threads.
// cpu+runq near 1 means the process always wanted a CPU; a large runq means it
// was starved of one.
//
// cpu comes from schedstat's Running (nanoseconds) when both samples have it,
// otherwise from the tick-based CPU (10 ms steps: noisy over short intervals).
// runq is 0 without schedstat.
//
// Share returns 0, 0 when wall ≤ 0 or when the samples are not of the same
// process (PID or Start differ: the process restarted or the pid was reused).
// A counter that went backwards counts as 0.
func Share(prev, cur ProcSample, wall time.Duration) (cpu, runq float64) {
	if wall <= 0 || prev.PID != cur.PID || !prev.Start.Equal(cur.Start) {
		return 0, 0
	}
	if prev.HasSchedstat && cur.HasSchedstat {
		cpu = fraction(cur.Running-prev.Running, wall)
		runq = fraction(cur.RunDelay-prev.RunDelay, wall)
		return cpu, runq
	}
	return fraction(cur.CPU-prev.CPU, wall), 0
}

// HostBusy returns the fraction, 0 to 1, of the whole host's CPU capacity that
// was busy between prev and cur (1 means every CPU was busy all the time). It is
// 0 when no CPU time passed between the samples or they are out of order.
func HostBusy(prev, cur HostSample) float64 {
	total := cur.Total - prev.Total
	if total <= 0 {
		return 0
	}
	return min(fraction(cur.Busy-prev.Busy, total), 1)
}

// fraction is part/whole, 0 when part is negative.
func fraction(part, whole time.Duration) float64 {
	if part <= 0 {
		return 0
	}
	return float64(part) / float64(whole)
}
