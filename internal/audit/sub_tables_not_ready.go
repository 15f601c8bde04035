package audit

import (
	"fmt"
	"strings"

	"github.com/lagscope/lagscope/internal/quote"
)

// CheckTablesNotReady is the ID of tablesNotReady: its page is docs/checks/tables-not-ready.md.
const CheckTablesNotReady CheckID = "tables-not-ready"

// tablesNotReady: tables still synchronising (or stuck).
var tablesNotReady = Check{
	ID:       CheckTablesNotReady,
	Title:    "every subscribed table is ready",
	Severity: Warning,
	Side:     SubscriberSide,
	Needs:    []Section{SubSubscriptions, SubRels},
	Run: func(s Snapshots) []Finding {
		names := map[string]string{"i": "waiting for its copy", "d": "copying", "f": "copied, catching up",
			"s": "synchronised, handing over to apply", "r": "ready"}
		var out []Finding
		for _, sub := range s.Subscriber.Subscriptions {
			var waiting []string
			objects := []string{"subscription " + id(sub.Name)}
			for _, rel := range sub.Relations {
				if rel.State == "r" {
					continue
				}
				state := names[rel.State]
				if state == "" {
					state = "state " + rel.State
				}
				waiting = append(waiting, fmt.Sprintf("%s (%s: %s)", rel.Table, rel.State, state))
				objects = append(objects, "table "+rel.Table)
			}
			if len(waiting) == 0 {
				continue
			}
			fix := "Wait for the copy to finish; if a table does not progress, read the tablesync worker's error in the " +
				"subscriber's log (see apply-errors: sync_error_count) and fix it."
			var run []quote.Statement
			if !sub.Enabled {
				fix = "A disabled subscription copies nothing: enable it. " + fix
				run = []quote.Statement{quote.SQL("ALTER SUBSCRIPTION %I ENABLE;", sub.Name).OnServer(onSubscriber)}
			}
			out = append(out, Finding{
				Objects: objects,
				Found: fmt.Sprintf("Subscription %s has %d of %d tables not ready: %s.", id(sub.Name), len(waiting),
					len(sub.Relations), strings.Join(waiting, ", ")),
				Why: "A table is ready only after its initial copy and catch-up. Until then a table synchronisation worker " +
					"handles it (at most max_sync_workers_per_subscription at a time, each with its own temporary slot and " +
					"walsender); a table that stays in one state is usually failing its copy.",
				Fix: fix,
				Run: run,
			})
		}
		return out
	},
}
