package scenario

import (
	"time"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// replayCPU: the standby's startup process replays a released backlog on
// its full core.
var replayCPU = Scenario{
	Recipe: lab.Recipe{Name: "replay-cpu", Summary: "the publisher's physical standby, its table read into its shared_buffers, builds a backlog with replay paused under the 16-client load (pgbench on both CPUs) for 3 windows, then the load stops and replay is released: the startup process replays at full speed on its CPU; the catch-up to the publisher's position at the release is timed",
		Layout: lab.Flat,
		Steps:  []lab.Step{lab.WithStandby(lab.StandbyOptions{}), lab.WarmStandby, lab.PausedBacklog(3, false), lab.ReleaseReplay},
		Drains: true},
	Physical: true,
	// Replay on a core of its own runs 170-250 MB/s here: 90 s of load
	// leave 2.0-2.4 GB, 10-13 s of it, of which diagnose sees the first 4.
	Expect: Expect{Window: 4 * time.Second, BacklogTime: 90 * time.Second,
		Verdict: model.ReplayCPU,
		Check: func(r *lab.Result) []string {
			var p problems
			sr := standbyMeasured(&p, r)
			if sr == nil {
				return p
			}
			// On a core or waiting for one: the 2-core VM's other work
			// takes some of the standby's CPU.
			if busy := sr.Startup.CPUShare + sr.Startup.RunqueueShare; busy < 0.8 || sr.Startup.Share("CPU") < 0.6 || sr.Startup.Share("DataFileRead") > 0.2 {
				p.add("the startup process was on CPU or in the run queue %.0f%% of the time while replay was behind, with no wait event in %.0f%% of its probes and DataFileRead in %.0f%% (%v); want >= 80%%, >= 60%% and <= 20%%",
					100*busy, 100*sr.Startup.Share("CPU"), 100*sr.Startup.Share("DataFileRead"), sr.Startup.WaitShares)
			}
			checkCaughtUpOnce(&p, sr, 5)
			checkStandbyData(&p, r)
			return p
		}},
}
