package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// walReadIO: the walsender reads its WAL from a slow volume.
var walReadIO = Scenario{
	Recipe: lab.Recipe{Name: "wal-read-io", Summary: "backlog, publisher idle; its WAL dropped from the page cache and the publisher's disk reads capped at 2 MB/s (a cloud volume's throughput limit): the walsender waits on WAL reads (needs root)",
		Layout: lab.Flat, PubReadLimit: 2_000_000,
		// ~45 MB at the default 16 clients: 20 s or more to read at 2 MB/s.
		Steps:      []lab.Step{lab.Backlog(0.5), lab.EvictWAL, lab.Enable},
		UntilBelow: lab.DrainedMB, Drains: true},
	Expect: Expect{ComparedBy: updatesCompared, Verdict: model.WalsenderReadIO, Recorded: "backlog with the publisher idle, its WAL dropped from the page cache (fadvise) and the publisher's disk reads capped at 2 MB/s by a blkio cgroup: the walsender waits on WALRead",
		Check: func(r *lab.Result) []string {
			var p problems
			if share := r.Walsender.Share("WALRead"); share < 0.5 {
				p.add("walsender waited on WALRead in %.0f%% of its probes (%v), want >= 50%%", 100*share, r.Walsender.WaitShares)
			}
			checkData(&p, r)
			return p
		}},
}
