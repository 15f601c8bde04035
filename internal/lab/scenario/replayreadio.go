package scenario

import (
	"time"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// replayReadIO: the standby's startup process waits on data file reads
// while it replays a released backlog.
var replayReadIO = Scenario{
	Recipe: lab.Recipe{Name: "replay-read-io", Summary: "the publisher's physical standby (shared_buffers 16MB) builds a backlog with replay paused under the 16-client load (pgbench on both CPUs) for 2 windows, its table and index files dropped from the page cache every 100 ms; then the load stops and replay is released: the startup process reads the pages it changes from the disk; the catch-up to the publisher's position at the release is timed",
		Layout: lab.Flat,
		Steps: []lab.Step{lab.WithStandby(lab.StandbyOptions{SharedBuffers: "16MB"}), lab.EvictStandbyData,
			lab.PausedBacklog(2, false), lab.ReleaseReplay},
		Drains: true},
	Physical: true,
	// Replay reading its pages runs 45-60 MB/s here: 30 s of load leave
	// about 550 MB, 9-12 s of it, of which diagnose sees the first 4.
	Expect: Expect{Window: 4 * time.Second, BacklogTime: 30 * time.Second,
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
