package audit

import (
	"fmt"
	"strings"

	"github.com/lagscope/lagscope/internal/quote"
)

// CheckApplyErrors is the ID of applyErrors: its page is docs/checks/apply-errors.md.
const CheckApplyErrors CheckID = "apply-errors"

// applyErrors: apply and sync errors, and (18+) conflicts.
var applyErrors = Check{
	ID:          CheckApplyErrors,
	Title:       "no apply or sync errors, no conflicts",
	Severity:    Error,
	MinVersion:  15,
	VersionNote: "pg_stat_subscription_stats is new in 15 (conflict counters in 18)",
	Side:        SubscriberSide,
	Needs:       []Section{SubSubscriptions, SubWorkers, SubStats},
	Run: func(s Snapshots) []Finding {
		var out []Finding
		for _, sub := range s.Subscriber.Subscriptions {
			st := sub.Stats
			if st == nil {
				continue
			}
			var conflicts []string
			var nconf int64
			for _, k := range sortedKeys(st.Conflicts) {
				if n := st.Conflicts[k]; n > 0 {
					conflicts = append(conflicts, fmt.Sprintf("%s %d", k, n))
					nconf += n
				}
			}
			if st.ApplyErrors+st.SyncErrors+nconf == 0 {
				continue
			}
			period := "since the subscription was created"
			if st.StatsReset != nil {
				period = "since " + st.StatsReset.UTC().Format("2006-01-02 15:04 UTC")
			}
			found := fmt.Sprintf("Subscription %s has had %s and %s %s.", id(sub.Name),
				plural(st.ApplyErrors, "apply error"), plural(st.SyncErrors, "sync error"), period)
			if st.ApplyErrors+st.SyncErrors == 0 {
				found = fmt.Sprintf("Subscription %s has met %s %s.", id(sub.Name), plural(nconf, "conflict"), period)
			}
			if len(conflicts) > 0 {
				found += " Conflicts: " + strings.Join(conflicts, ", ") + "."
			}
			sev := Warning
			running := false
			for _, w := range sub.Workers {
				if w.Type == "apply" {
					running = true
				}
			}
			if sub.Enabled && !running && st.ApplyErrors > 0 {
				sev = Error
				found += " No apply worker is running now: it is probably failing again."
			}
			if !sub.Enabled && st.ApplyErrors > 0 {
				sev = Error
				found += " It is disabled (see subscription-stopped): enabled before the error's fix, it fails again at the same transaction."
			}
			var run []quote.Statement
			if sub.OID != 0 {
				// By OID: the server takes it, and no name is inlined.
				run = append(run, quote.SQL("SELECT pg_stat_reset_subscription_stats(%d);", sub.OID).OnServer(onSubscriber).
					WithNote(fmt.Sprintf("resets the counters of subscription %s (OID %d) once its cause is fixed", id(sub.Name), sub.OID)))
			}
			out = append(out, Finding{
				Severity: sev,
				Objects:  []string{"subscription " + id(sub.Name)},
				Found:    found,
				Why: "An apply error stops the apply worker; it restarts after wal_retrieve_retry_interval (5 s by default) " +
					"and retries the same transaction, so nothing is applied while the error repeats and the lag grows " +
					"with every retry. Conflicts (18+) mean rows differ between the sides.",
				Fix: fixFor(st.ApplyErrors+st.SyncErrors == 0) + fmt.Sprintf("Find the error in the subscriber's log (a unique violation, a missing table or column, a "+
					"permission) and fix the data or schema; or skip the failing transaction with subscription %s's SKIP option "+
					"at the finish LSN the error's context names (lagscope cannot know it). Then reset the subscription's "+
					"counters.", id(sub.Name)),
				Run: run,
			})
		}
		return out
	},
}

// fixFor starts the fix of a subscription that met conflicts without
// errors: its rows were skipped, not stopped on.
func fixFor(conflictsOnly bool) string {
	if !conflictsOnly {
		return ""
	}
	return "Updates or deletes of missing rows were skipped: the subscriber's log names each conflict's table and key " +
		"(\"conflict detected on relation\"); repair those rows from the publisher (or re-copy the table). For errors: "
}
