package measure

import (
	"github.com/lagscope/lagscope/internal/sample"
)

// Throttle is what the CPU limit of a role's cgroup did over the window.
type Throttle struct {
	// Cgroup is the cgroup's path ("" when no counters were read).
	Cgroup string `json:"cgroup,omitempty"`
	// Share is the share of the cgroup's enforcement periods in which it
	// ran out of CPU quota; -1 when unknown or no quota is set (no periods).
	Share float64 `json:"throttled_share" jsonschema:"nullable"`
	// Seconds is how long its runnable tasks were held back, per second of
	// the window.
	Seconds float64 `json:"throttled_s_per_s"`
}

// throttleOf reads the cgroup counters of the role's processes on side at
// the window's first and last ticks that have them (the first process
// found: a role's processes share the server's cgroup).
func throttleOf(ticks []sample.Tick, pids map[int]bool, side string) Throttle {
	t := Throttle{Share: -1}
	var first, last *sample.ProcStat
	var t0, t1 float64
	for i := range ticks {
		for j := range ticks[i].Procs {
			ps := &ticks[i].Procs[j]
			if ps.Side != side || !pids[ps.PID] || ps.Cgroup == "" {
				continue
			}
			if first == nil {
				first, t0 = ps, float64(ticks[i].At.UnixNano())/1e9
			}
			if ps.Cgroup == first.Cgroup {
				last, t1 = ps, float64(ticks[i].At.UnixNano())/1e9
			}
			break
		}
	}
	if first == nil || last == first {
		return t
	}
	t.Cgroup = first.Cgroup
	if p := last.Periods - first.Periods; p > 0 {
		t.Share = float64(last.Throttled-first.Throttled) / float64(p)
	}
	if t1 > t0 {
		t.Seconds = float64(last.ThrottledNs-first.ThrottledNs) / 1e9 / (t1 - t0)
	}
	return t
}
