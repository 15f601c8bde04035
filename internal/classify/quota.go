package classify

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/measure"
)

// QuotaThrottled is the share of its cgroup's CPU periods (100 ms each by
// default) in which a starved process's cgroup ran out of quota from which
// the cgroup's CPU limit, not the host, counts as what starves it: its
// run-queue delay is then the quota's doing, and the host may be idle.
const QuotaThrottled = 0.3

// quotaStarved rewrites a starved verdict (walsender-starved,
// subscriber-starved) when the process's cgroup was throttled by its CPU
// limit: the cause, the evidence and the advice are the container's CPU
// limit, not other work on the host.
func quotaStarved(v Verdict, side, noun string, t measure.Throttle, hostBusy float64) Verdict {
	if t.Share < QuotaThrottled {
		return busyHostHeadline(v, side, noun, hostBusy)
	}
	v.Headline = fmt.Sprintf("the %s is held back by its CPU limit: its cgroup runs out of CPU quota, so it waits though it could run", noun)
	line := fmt.Sprintf("the %s's cgroup %s ran out of its CPU quota in %s of its periods, holding its tasks back %.2f s a second (cpu.stat nr_throttled, throttled time)", side, t.Cgroup, pct(t.Share), t.Seconds)
	if hostBusy >= 0 {
		line += fmt.Sprintf(", while the host was %s busy", pct(hostBusy))
	}
	v.Evidence = append(v.Evidence, line)
	v.Cause = fmt.Sprintf("CPU quota throttling: the %s's container or cgroup has a CPU limit (cgroup v2 cpu.max, v1 cpu.cfs_quota_us) that the %s exhausts", side, noun)
	v.Helps = []string{
		fmt.Sprintf("a higher CPU limit for the %s's container or cgroup (cpu.max; Kubernetes resources.limits.cpu), or a request without a limit", side),
		"fewer processes sharing that limit (other sessions of the same server or container)",
	}
	v.NotHelps = []string{
		"moving other work off the host: the limit holds the process back whatever the host's load",
		"more bandwidth, or tuning the other side",
	}
	return v
}

// BusyHost is the host CPU share from which a starved process's host counts
// as saturated; below it, the CPUs the process may run on are (CPU
// affinity, a cpuset or a quota the host does not show).
const BusyHost = 0.9

// busyHostHeadline states what the evidence shows of a starved process's
// host: saturated, or not while the process's own CPUs are.
func busyHostHeadline(v Verdict, side, noun string, hostBusy float64) Verdict {
	if hostBusy < 0 || hostBusy >= BusyHost {
		return v
	}
	v.Headline = fmt.Sprintf("the %s is runnable but waits for a CPU: the CPUs it may run on are saturated (CPU affinity, a cpuset or a CPU limit), though the %s host as a whole is %s busy", noun, side, pct(hostBusy))
	return v
}
