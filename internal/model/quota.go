package model

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/measure"
)

// QuotaThrottled is the share of its cgroup's CPU periods (100 ms each by
// default) in which a starved process's cgroup ran out of quota from which
// the cgroup's CPU limit, not the host, counts as what starves it: its
// run-queue delay is then the quota's doing, and the host may be idle.
const QuotaThrottled = 0.3

// quotaStarved says what starves a starved verdict's process
// (walsender-starved, subscriber-starved): when its cgroup was throttled by
// its CPU limit, the container's CPU limit (FillQuota, with its evidence),
// not other work on the host.
func quotaStarved(v Verdict, side, noun string, t measure.Throttle, hostBusy float64) Verdict {
	v.d.side, v.d.noun, v.d.hostBusy = side, noun, hostBusy
	if t.Share < QuotaThrottled {
		return busyHost(v, hostBusy)
	}
	v.d.fill, v.d.throttle = FillQuota, t
	return v
}

// quotaLine is the evidence of a cgroup that runs out of its CPU quota
// (FillQuota).
func quotaLine(d diagnosis) Evidence {
	t := d.throttle
	line := fmt.Sprintf("the %s's cgroup %s ran out of its CPU quota in %s of its periods, holding its tasks back %.2f s a second (cpu.stat nr_throttled, throttled time)", d.side, t.Cgroup, pct(t.Share), t.Seconds)
	if d.hostBusy >= 0 {
		line += fmt.Sprintf(", while the host was %s busy", pct(d.hostBusy))
	}
	return item(EvQuota, line, Figures{"period_share": t.Share, "throttled_s_per_s": t.Seconds, "host_busy_share": d.hostBusy})
}

// BusyHost is the host CPU share from which a starved process's host counts
// as saturated; below it, the CPUs the process may run on are (CPU
// affinity, a cpuset or a quota the host does not show).
const BusyHost = 0.9

// busyHost says what the evidence shows of a starved process's host:
// saturated, or not while the process's own CPUs are (FillAffinity).
func busyHost(v Verdict, hostBusy float64) Verdict {
	if hostBusy >= 0 && hostBusy < BusyHost {
		v.d.fill = FillAffinity
	}
	return v
}
