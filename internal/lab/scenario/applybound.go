package scenario

import (
	"strings"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// applyBound: the apply worker saturates its CPU, maintaining 3 indexes
// the publisher lacks.
var applyBound = Scenario{
	Recipe: lab.Recipe{Name: "apply-bound", Summary: "flat table with 3 extra indexes on the subscriber, backlog, publisher idle: the apply worker saturates its CPU",
		Layout: lab.Flat, SubIndexes: 3,
		// The apply worker is slower than the load: a shorter backlog still
		// outlasts the window and drains sooner afterwards.
		Steps:      []lab.Step{lab.Backlog(1.2), lab.Enable},
		UntilBelow: lab.DrainedMB, Drains: true},
	Expect: Expect{ComparedBy: updatesCompared, Verdict: model.SubscriberApplyCPU, Recorded: "3 extra indexes on the subscriber's table, backlog, publisher idle",
		Check: func(r *lab.Result) []string {
			var p problems
			checkApplyOnCPU(&p, r)
			if top, share := r.Apply.Top(); top != "CPU" {
				p.add("apply mostly %s (%.0f%%), want mostly CPU", top, 100*share)
			}
			if r.Walsender.RunqueueShare > 0.15 {
				p.add("idle publisher: walsender runqueue_share = %.2f, want <= 0.15", r.Walsender.RunqueueShare)
			}
			checkData(&p, r)
			return p
		},
		Diagnosis: func(d Diagnosed) []string {
			var p problems
			// 3 indexes the publisher lacks: named, with what they cost in WAL.
			if c := d.Path.Cause; !strings.Contains(c, "Table public.hot has 3 indexes") || !strings.Contains(c, "the WAL it was sent") ||
				len(d.Path.Helps) == 0 || !strings.Contains(d.Path.Helps[0].Said(), "DROP INDEX") {
				p.add("cause %q, helps %q: want hot's 3 extra indexes and the subscriber's WAL ratio named, DROP INDEX first", c, d.Path.Helps)
			}
			if d.Path.SubWALPerSent < 1 {
				p.add("the subscriber wrote %.2fx the WAL it was sent: want at least as much (it applies every change and its indexes)", d.Path.SubWALPerSent)
			}
			return p
		}},
}
