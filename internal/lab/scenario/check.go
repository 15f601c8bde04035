package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/sample"
)

// Checks the scenarios share.

// updatesCompared is the ComparedBy of the states whose backlog is seed
// 000's 20-row UPDATEs of hot, applied by one apply worker with no trigger,
// constraint, generated column, partition or streamed transaction of its
// own: what limits it (its CPU, a CPU limit, other processes on its core,
// its disk, the walsender's WAL reads, an extra index) changes how fast
// the rows arrive, not which rows or how they are applied. subscriber-lock
// compares that path after a drain of a few seconds.
const updatesCompared = "subscriber-lock: the same UPDATE backlog of hot, applied by one apply worker the same way; only what limits its speed differs"

// checkData says whether the data matched on both sides after the backlog
// drained (nothing when the run did not verify it: a repeat).
func checkData(p *problems, r *lab.Result) {
	if r.DataDetail == "" && r.DataMatches == nil {
		return
	}
	if r.DataMatches == nil || !*r.DataMatches {
		p.add("data after drain: %v %s", r.DataMatches, r.DataDetail)
	}
}

// checkApplyOnCPU wants the apply worker on its CPU or waiting for one
// (CPU plus run queue) 85% of the window or more: on this shared 2-vCPU
// VM another tenant can take a tenth of the core (the classifier's
// BusyDemand rule).
func checkApplyOnCPU(p *problems, r *lab.Result) {
	if d := r.Apply.CPUShare + r.Apply.RunqueueShare; d < 0.85 {
		p.add("apply cpu_share %.2f + runqueue_share %.2f = %.2f, want >= 0.85", r.Apply.CPUShare, r.Apply.RunqueueShare, d)
	}
}

// checkNothingApplied wants nothing of the backlog applied: the slot may
// still confirm an idle server's own records (6 B/s on 16.14), never the
// backlog's.
func checkNothingApplied(p *problems, r *lab.Result) {
	if r.Lag.Total == 0 || r.Lag.Total < r.Lag.Start-(1<<20) || r.ConsumedMBps*1e6 >= 1e3 {
		p.add("confirmed %.6f MB/s, %d of %d bytes left; want nothing applied from the backlog", r.ConsumedMBps, r.Lag.Total, r.Lag.Start)
	}
}

// blockerTicks counts the ticks that name a session of application app as
// a replication worker's blocker.
func blockerTicks(r *lab.Result, app string) int {
	return ticksWhere(r, func(tk sample.Tick) bool {
		for _, b := range tk.Read(sample.SubscriberNode).Blockers {
			if b.AppName == app {
				return true
			}
		}
		return false
	})
}

// ticksWhere counts the ticks of the lab's recording for which f is true.
func ticksWhere(r *lab.Result, f func(sample.Tick) bool) int {
	n := 0
	for _, tk := range r.Recording.Ticks {
		if f(tk) {
			n++
		}
	}
	return n
}
