package scenario

import (
	"strings"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// subCPUIO: the apply worker splits its time between its CPU and reads
// from a fast disk.
var subCPUIO = Scenario{
	Recipe: lab.Recipe{Name: "sub-cpu-io", Summary: "sub-read-io with the subscriber's disk reads capped at 200 MB/s: the apply worker splits its time between CPU (~60%) and page reads (~35%); the split depends on the disk's speed",
		Layout: lab.Flat, SubIndexes: 3, SubReadLimit: 200_000_000, SubSettings: map[string]string{"shared_buffers": "2MB"},
		// A fast disk: the apply worker runs at about half apply-bound's
		// speed (on 16.14 the slow disk's share of 0.3, ~25 MB, once drained
		// to 4 kB within the window).
		Steps:      []lab.Step{lab.Backlog(1.2), lab.Enable, lab.EvictHotData},
		UntilBelow: lab.DrainedMB, Drains: true},
	Expect: Expect{ComparedBy: updatesCompared, Verdict: model.SubscriberApplyCPU, AlsoRight: model.SubscriberWaits, Recorded: "sub-read-io with the reads capped at 200 MB/s: the apply worker ran ~60% on a CPU (the reads' kernel time included) and spent ~35% more in DataFileRead (data larger than memory, a fast disk)",
		Check: func(r *lab.Result) []string {
			var p problems
			if cpu, share := r.Apply.CPUShare, r.Apply.Share("DataFileRead"); cpu < 0.4 || share < 0.2 {
				p.add("apply CPU %.0f%%, DataFileRead %.0f%% of its probes: want a mix (>= 40%% and >= 20%%)", 100*cpu, 100*share)
			}
			checkData(&p, r)
			return p
		},
		Diagnosis: func(d Diagnosed) []string {
			var p problems
			ev := strings.Join(model.EvidenceTexts(d.Path.Evidence), " ")
			named := strings.Contains(ev, "waited on I/O")
			if d.Path.Name == model.SubscriberWaits {
				named = strings.Contains(ev, "also ran on a CPU") && strings.Contains(ev, "DataFileRead")
			}
			if d.Path.Limit != model.StageApply || !named {
				p.add("%s limit %q, evidence %q: want the apply stage with both its CPU and its I/O part named", d.Path.Name, d.Path.Limit, model.EvidenceTexts(d.Path.Evidence))
			}
			return p
		}},
}
