package audit

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/quote"
)

// CheckSubscriptionStopped is the ID of subscriptionStopped: its page is docs/checks/subscription-stopped.md.
const CheckSubscriptionStopped CheckID = "subscription-stopped"

// subscriptionStopped: a disabled subscription, or one without an apply worker.
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
				if sub.DisableOnError {
					found += " It has disable_on_error = true: an apply error may have disabled it (see the subscriber's log)."
				}
				out = append(out, Finding{
					Objects: []string{"subscription " + id(sub.Name)},
					Found:   found + retains,
					Why: "Nothing is applied while it is disabled: the lag grows with every change on the publisher, and its " +
						"slot keeps all that WAL on the publisher until it is enabled again.",
					Fix: "Enable the subscription (after fixing what disabled it, if an error did).",
					Run: []quote.Statement{quote.SQL("ALTER SUBSCRIPTION %I ENABLE;", sub.Name).OnServer(onSubscriber)},
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
