package scenario

import (
	"strings"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// cpuQuota: the subscriber's server runs under a container's CPU limit.
var cpuQuota = Scenario{
	Recipe: lab.Recipe{Name: "cpu-quota", Summary: "apply-bound's backlog, the subscriber's server in a cgroup limited to 0.3 CPU (a container's CPU limit): the apply worker is throttled while its CPU idles (needs root)",
		Layout: lab.Flat, SubIndexes: 3, SubCPULimit: 0.3, Steps: []lab.Step{lab.Backlog(1.2), lab.Enable},
		UntilBelow: lab.DrainedMB, Drains: true},
	Expect: Expect{ComparedBy: updatesCompared, Verdict: model.SubscriberStarved, Recorded: "apply-bound's backlog with the subscriber's server in a cgroup limited to 0.3 CPU (v1 cpu.cfs_quota_us here): the apply worker is throttled while the CPU idles",
		Check: func(r *lab.Result) []string {
			var p problems
			if th := r.Apply.Throttle; th.Share < 0.5 || r.Apply.RunqueueShare < 0.3 {
				p.add("apply cgroup %q throttled in %.0f%% of its periods, run queue %.0f%%: want >= 50%% and >= 30%%", th.Cgroup, 100*th.Share, 100*r.Apply.RunqueueShare)
			}
			checkData(&p, r)
			return p
		},
		Diagnosis: func(d Diagnosed) []string {
			var p problems
			if !strings.Contains(d.Path.Cause, "CPU quota") {
				p.add("cause %q, want the CPU quota named", d.Path.Cause)
			}
			return p
		}},
}
