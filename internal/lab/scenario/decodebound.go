package scenario

import (
	"strings"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// decodeBound: an expensive publication row filter keeps the walsender
// on its CPU.
var decodeBound = Scenario{
	Recipe: lab.Recipe{Name: "decode-bound", Summary: "an expensive publication row filter discards every change: the walsender is CPU-bound, apply idles (PostgreSQL 15+)",
		Layout: lab.Flat, RowFilter: "mod(power(id::numeric, 250), 7) = -1", Steps: []lab.Step{lab.Backlog(1.5), lab.Enable},
		UntilBelow: lab.DrainedMB},
	Expect: Expect{Verdict: model.WalsenderDecodeCPU, Recorded: "an expensive publication row filter that discards every change",
		Check: func(r *lab.Result) []string {
			var p problems
			if d := r.Walsender.CPUShare + r.Walsender.RunqueueShare; d < 0.85 {
				p.add("walsender cpu_share %.2f + runqueue_share %.2f = %.2f, want >= 0.85", r.Walsender.CPUShare, r.Walsender.RunqueueShare, d)
			}
			if share := r.Apply.Share("LogicalApplyMain"); share < 0.5 {
				p.add("apply waiting for data in %.0f%% of probes, want most", 100*share)
			}
			return p
		},
		Diagnosis: func(d Diagnosed) []string {
			var p problems
			pa := d.Path
			if !strings.Contains(pa.Cause, "WHERE") || len(pa.Helps) == 0 || !strings.Contains(pa.Helps[0].Said(), "ALTER PUBLICATION") {
				p.add("cause %q, helps %q: want the publication's row filter named, its ALTER PUBLICATION first", pa.Cause, pa.Helps)
			}
			for _, h := range model.Texts(pa.Helps) {
				if strings.Contains(h, "fewer slots") || strings.Contains(h, "logical_decoding_work_mem large enough") {
					p.add("help %q: the lab's publisher has one slot and spills nothing", h)
				}
			}
			return p
		}},
}
