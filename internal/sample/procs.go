package sample

import (
	"math"

	"github.com/lagscope/lagscope/internal/proc"
)

// ProcReader reads this host's /proc. The sampler uses it only for servers
// reached over a unix socket or loopback, and only for pids whose start time
// matches the backend's backend_start.
type ProcReader interface {
	Process(pid int) (proc.ProcSample, error)
	Host() (proc.HostSample, error)
	CPUThrottle(pid int) (proc.Throttle, error)
	AllowedCPUs(pid int) (proc.Allowed, error)
	// Allowed and Load read the competing load (readHostLoadSource).
	Allowed(pid int) ([]int, error)
	Load(cpus []int) ([]proc.ProcCPU, error)
}

// procKey is what the server says about one of its processes.
type procKey struct {
	role  string
	start float64 // backend_start, seconds since the epoch (0 = unknown)
	// lockWait says the worker waited on a heavyweight lock when the tick
	// read it (subscriber workers): only those are asked for blockers.
	lockWait bool
	// conflict is what a standby's startup process waits on as a
	// recovery conflict when the tick read it ("snapshot", "lock", "buffer
	// pin", "tablespace"; "" for none): its holders are read then.
	conflict string
}

// startTolerance is how far /proc's start time may be from backend_start
// (clock ticks are 10 ms; backend_start is set shortly after fork).
const startTolerance = 2.0 // seconds

// readProcs reads CPU and run-queue delay of the given processes. A pid whose
// start time does not match is skipped: it is not that backend (another
// host, another pid namespace, or a reused pid).
func readProcs(pr ProcReader, side string, keys map[int]procKey) []ProcStat {
	var out []ProcStat
	for pid, k := range keys {
		ps, err := pr.Process(pid)
		if err != nil {
			continue
		}
		st := float64(ps.Start.UnixNano()) / 1e9
		if k.start == 0 || math.Abs(st-k.start) > startTolerance {
			continue
		}
		cpu := ps.CPU // clock ticks: 10 ms resolution
		if ps.HasSchedstat {
			cpu = ps.Running // nanoseconds
		}
		out1 := ProcStat{Side: side, PID: pid, Role: k.role, CPUNs: int64(cpu), RunqNs: int64(ps.RunDelay)}
		// Best effort: a cgroup without a cpu controller has no counters.
		if t, err := pr.CPUThrottle(pid); err == nil {
			out1.Cgroup, out1.Periods, out1.Throttled, out1.ThrottledNs = t.Cgroup, t.Periods, t.Throttled, int64(t.ThrottledTime)
		}
		// A leader apply worker's CPUs (what a split of its tables can
		// use); best effort, as the throttling counters.
		if k.role == RoleApply {
			if a, err := pr.AllowedCPUs(pid); err == nil {
				out1.CPUsAllowed, out1.CPUsAllowedBy = a.CPUs, a.By
			}
		}
		out = append(out, out1)
	}
	return out
}

func readHost(pr ProcReader) *HostStat {
	h, err := pr.Host()
	if err != nil {
		return nil
	}
	return &HostStat{BusyNs: int64(h.Busy), TotalNs: int64(h.Total)}
}
