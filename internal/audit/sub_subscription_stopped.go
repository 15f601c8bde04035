package audit

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/quote"
)

// CheckSubscriptionStopped is the ID of subscriptionStopped: its page is docs/checks/subscription-stopped.md.
const CheckSubscriptionStopped CheckID = "subscription-stopped"

// subscriptionStopped: a disabled subscription, or one without an apply worker;
// one disabled after apply errors is told the error's fix before enabling.
var subscriptionStopped = Check{
	ID:       CheckSubscriptionStopped,
	Title:    "every subscription is enabled and has an apply worker",
	Severity: Error,
	Side:     SubscriberSide,
	Needs:    []Section{SubSubscriptions, SubWorkers},
	Run: func(s Snapshots) []Finding {
		var out []Finding
		for _, sub := range s.Subscriber.Subscriptions {
			retains := ""
			if s.Publisher != nil {
				for _, sl := range s.Publisher.Slots {
					if sl.Name == sub.Slot {
						retains = fmt.Sprintf(" Its slot %s on the publisher retains %s of WAL.", id(sl.Name), byteSize(sl.Retained(s.Publisher.CurrentLSN)))
					}
				}
			}
			if !sub.Enabled {
				found := fmt.Sprintf("Subscription %s is disabled.", id(sub.Name))
				fix := "Enable the subscription (after fixing what disabled it, if an error did)."
				enable := quote.SQL("ALTER SUBSCRIPTION %I ENABLE;", sub.Name).OnServer(onSubscriber)
				errs := int64(0)
				if sub.Stats != nil {
					errs = sub.Stats.ApplyErrors
				}
				switch {
				case errs > 0:
					// Enabled alone it fails again at the same transaction:
					// the error's fix comes first.
					found = fmt.Sprintf("Subscription %s is disabled after %s (apply_error_count).", id(sub.Name), plural(errs, "apply error"))
					if sub.DisableOnError {
						found += " It has disable_on_error = true: its first apply error disabled it."
					}
					fix = "Find the error first, in the subscriber's log: an ERROR line from the logical replication apply worker " +
						"for the subscription, with a CONTEXT line \"processing remote data for replication origin ... finished at <LSN>\" " +
						"that names the failing transaction's finish LSN. Then skip that transaction with the subscription's SKIP " +
						"option at that LSN (lagscope cannot know it), or fix the data or schema the error names. Only then enable " +
						"the subscription: enabled before, it fails again at the same transaction (see apply-errors)."
					enable = enable.WithNote("only after the failing transaction is skipped or its data fixed")
				case sub.DisableOnError:
					found += " It has disable_on_error = true: an apply error may have disabled it (see the subscriber's log)."
				}
				out = append(out, Finding{
					Objects: []string{"subscription " + id(sub.Name)},
					Found:   found + retains,
					Why: "Nothing is applied while it is disabled: the lag grows with every change on the publisher, and its " +
						"slot keeps all that WAL on the publisher until it is enabled again.",
					Fix: fix,
					Run: []quote.Statement{enable},
				})
				continue
			}
			apply := false
			for _, w := range sub.Workers {
				if w.Type == "apply" {
					apply = true
				}
			}
			if apply {
				continue
			}
			out = append(out, Finding{
				Objects: []string{"subscription " + id(sub.Name)},
				Found:   fmt.Sprintf("Subscription %s is enabled but no apply worker is running for it.%s", id(sub.Name), retains),
				Why: "Without its apply worker nothing is applied. An enabled subscription without one is usually failing " +
					"and restarting (every wal_retrieve_retry_interval), or waiting for a free worker slot " +
					"(max_logical_replication_workers).",
				Fix: "Read the apply worker's error in the subscriber's server log (\"logical replication apply worker for " +
					"subscription ...\"), fix its cause (see apply-errors and worker-headroom); it restarts by itself.",
			})
		}
		return out
	},
}
