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
	Expect: Expect{ByHand: "its catch-up on 18.4 varies from 3 to 21 s with the machine's load (18 reads through its I/O workers); in CI it would fail on a short one: run by hand (lab run replay-read-io --cycles 3)",
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
