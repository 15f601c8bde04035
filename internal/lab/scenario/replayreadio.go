package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// replayReadIO: the standby's startup process waits on data file reads
// while it replays a released backlog.
var replayReadIO = Scenario{
	Recipe: lab.Recipe{Name: "replay-read-io", Summary: "the publisher's physical standby (shared_buffers 16MB) builds a backlog with replay paused under the 16-client load for 3/4 of a window, its table and index files dropped from the page cache every 100 ms; replay is released with the load still running: the startup process reads the pages it changes from the disk; the catch-up is timed",
		Layout: lab.Flat,
		Steps: []lab.Step{lab.WithStandby(lab.StandbyOptions{SharedBuffers: "16MB"}), lab.EvictStandbyData,
			lab.PausedBacklog(0.75, true), lab.ReleaseReplay},
		Drains: true},
	Physical: true,
	Expect: Expect{ByHand: "the standby's CPU is shared with its WAL receiver and the evictor: on this 2-vCPU machine 3 of 6 runs (15.18, 18.4) had the startup process 20%+ in the run queue and were named replay-starved, two of them beside a compile; run by hand on a quiet machine (docs/lab.md)",
		Verdict: model.ReplayReadIO,
		Check: func(r *lab.Result) []string {
			var p problems
			sr := standbyMeasured(&p, r)
			if sr == nil {
				return p
			}
			// 18 reads through its I/O workers (io_method = worker): the
			// startup process then waits for their completion.
			if io := sr.Startup.Share("DataFileRead", "DataFilePrefetch", "AioIoCompletion"); io < 0.4 {
				p.add("the startup process waited on data file reads in %.0f%% of its probes (%v); want >= 40%%", 100*io, sr.Startup.WaitShares)
			}
			checkCaughtUpOnce(&p, sr, 5)
			checkStandbyData(&p, r)
			return p
		}},
}
