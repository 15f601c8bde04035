package scenario

import (
	"strings"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// fullIdentityIndex: REPLICA IDENTITY FULL with a plain index the 16+
// apply worker finds rows by; it runs at apply-bound's pace.
var fullIdentityIndex = Scenario{
	Recipe: lab.Recipe{Name: "full-identity-index", Summary: "REPLICA IDENTITY FULL, no key on the subscriber's copy but a plain btree on id, which the apply worker uses to find each row (PostgreSQL 16+); apply-bound's backlog: it saturates its CPU",
		Layout: lab.Flat, FullIdentity: true, MinMajor: 16, Needs: "an apply worker that finds REPLICA IDENTITY FULL rows by a non-key index",
		Steps:      []lab.Step{lab.SubIndexOnID, lab.Backlog(1.2), lab.Enable},
		UntilBelow: lab.DrainedMB, Drains: true},
	Expect: Expect{Verdict: model.SubscriberApplyCPU, Recorded: "REPLICA IDENTITY FULL with a plain btree on id on the subscriber (no key), which the 16+ apply worker finds rows by; apply-bound's backlog: the apply worker runs on a full core",
		// 16+ only (18 in CI); the cause it names is checked on its
		// recordings by the unit tests (internal/diagnose), so the lab run
		// (about 35 s) is left to by-hand runs, out of CI's time.
		ByHand: "its cause is checked on its recordings by the unit tests",
		Check: func(r *lab.Result) []string {
			var p problems
			// The apply worker finds each row by the index: it works at
			// apply-bound's pace, on its CPU, instead of scanning hot.
			checkApplyOnCPU(&p, r)
			checkData(&p, r)
			return p
		},
		Diagnosis: func(d Diagnosed) []string {
			var p problems
			// The index the 16+ apply worker finds rows by is named, with the
			// scans it made; no advice to create one or to drop indexes.
			if c := d.Path.Cause; !strings.Contains(c, "finds its rows by") || !strings.Contains(c, lab.FullIndexName) || !strings.Contains(c, "index scans") {
				p.add("cause %q: want the index %s named, with its scans", c, lab.FullIndexName)
			}
			for _, h := range model.Texts(d.Path.Helps) {
				if strings.Contains(h, "CREATE INDEX") || strings.Contains(h, "DROP INDEX") || strings.Contains(h, "fewer indexes") {
					p.add("help %q: the apply worker uses the only index there is", h)
				}
			}
			return p
		}},
}
