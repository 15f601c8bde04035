package scenario

import (
	"strings"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// fullIdentity: REPLICA IDENTITY FULL without an index on the subscriber;
// the apply worker scans the table for every change.
var fullIdentity = Scenario{
	Recipe: lab.Recipe{Name: "full-identity", Summary: "REPLICA IDENTITY FULL, no key or index on the subscriber's copy: a small backlog of single-row updates, each a sequential scan there",
		Layout: lab.Flat, FullIdentity: true,
		// Apply time, not load time: see fullIdentityUpdates.
		Steps:      []lab.Step{lab.FullIdentityBacklog(2), lab.Enable},
		UntilBelow: lab.Drained16kB, Drains: true},
	Expect: Expect{Verdict: model.SubscriberApplyCPU, Recorded: "REPLICA IDENTITY FULL without an index on the subscriber: a byte-small backlog that takes the apply worker longer than the window",
		Check: func(r *lab.Result) []string {
			var p problems
			if r.Lag.Total >= 16<<20 {
				p.add("lag %d bytes at the window's end, want a small backlog (< 16 MB)", r.Lag.Total)
			}
			checkApplyOnCPU(&p, r)
			if r.DrainedEarly {
				p.add("the backlog drained before the window ended")
			}
			checkData(&p, r)
			return p
		},
		Diagnosis: func(d Diagnosed) []string {
			var p problems
			pa := d.Path
			if sec, ok := pa.LagTime.Seconds.Get(); pa.LagBytes >= model.CaughtUpLag || !ok || sec <= model.CaughtUpTime {
				p.add("lag %d bytes, %.1f s in time: want a byte-small backlog more than %.0f s long", pa.LagBytes, sec, model.CaughtUpTime)
			}
			if !strings.Contains(pa.Cause, "public.hot has REPLICA IDENTITY FULL") || len(pa.Helps) == 0 || !strings.Contains(pa.Helps[0].Said(), "public.hot") {
				p.add("cause %q, helps %q: want public.hot's FULL identity without a usable index named, its fix first", pa.Cause, pa.Helps)
			}
			// The apply worker's scans, counted in pg_stat_user_tables: each
			// change reads part of hot's 100k rows.
			if !strings.Contains(pa.Cause, "; measured in the window: ") || !strings.Contains(pa.Cause, "rows read per second") {
				p.add("cause %q: want the rows its sequential scans read per second", pa.Cause)
			}
			for _, w := range pa.Tables {
				d.logf("%s.%s in %.1f s: %d updated, %d seq scans, %d rows read by them (%.0f/s, %.0f per row changed), %d index scans",
					w.Schema, w.Name, w.Seconds, w.Updated, w.SeqScans, w.SeqRead, w.PerSecond(w.SeqRead), w.SeqReadPerChange(), w.IdxScans)
			}
			return p
		}},
}
