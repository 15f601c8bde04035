package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// subReadIO: the apply worker reads its pages from a slow disk.
var subReadIO = Scenario{
	Recipe: lab.Recipe{Name: "sub-read-io", Summary: "apply-bound's backlog; the subscriber's shared_buffers 2MB, its table and index files dropped from the page cache every 100 ms (other work taking the memory) and its disk reads capped at 4 MB/s: the apply worker reads pages from disk (needs root)",
		Layout: lab.Flat, SubIndexes: 3, SubReadLimit: 4_000_000, SubSettings: map[string]string{"shared_buffers": "2MB"},
		// ~25 MB: longer than the window for an apply worker reading pages
		// at 4 MB/s.
		Steps:      []lab.Step{lab.Backlog(0.3), lab.Enable, lab.EvictHotData},
		UntilBelow: lab.DrainedMB, Drains: true},
	Expect: Expect{ComparedBy: updatesCompared, Verdict: model.SubscriberWaits, Recorded: "apply-bound's backlog; the subscriber's shared_buffers 2MB, its table and index files dropped from the page cache every 100 ms, its disk reads capped at 4 MB/s (blkio cgroup): the apply worker waits on DataFileRead",
		Check: func(r *lab.Result) []string {
			var p problems
			if share := r.Apply.Share("DataFileRead"); share < 0.4 {
				p.add("apply waited on DataFileRead in %.0f%% of its probes (%v), want >= 40%%", 100*share, r.Apply.WaitShares)
			}
			checkData(&p, r)
			return p
		}},
}
