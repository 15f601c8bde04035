package audit

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/quote"
)

// CheckWorkerHeadroom is the ID of workerHeadroom: its page is docs/checks/worker-headroom.md.
const CheckWorkerHeadroom CheckID = "worker-headroom"

// workerHeadroom: apply, tablesync and parallel apply workers come from
// max_logical_replication_workers, itself within max_worker_processes; each
// apply and tablesync worker also needs a replication origin.
var workerHeadroom = Check{
	ID:       CheckWorkerHeadroom,
	Title:    "enough logical replication workers and origins",
	Severity: Error,
	Side:     SubscriberSide,
	Needs:    []Section{SubSettings, SubSubscriptions},
	Run: func(s Snapshots) []Finding {
		sub := s.Subscriber
		var enabled, parallel int64
		for _, x := range sub.Subscriptions {
			if x.Enabled {
				enabled++
				if x.Streaming == "parallel" {
					parallel++
				}
			}
		}
		if enabled == 0 {
			return nil
		}
		workers, ok1 := sub.Settings.Int("max_logical_replication_workers")
		sync, ok2 := sub.Settings.Int("max_sync_workers_per_subscription")
		if !ok1 || !ok2 {
			return nil
		}
		perSub := sync
		if pa, ok := sub.Settings.Int("max_parallel_apply_workers_per_subscription"); ok && parallel > 0 && pa > perSub {
			perSub = pa
		}
		var out []Finding
		raise := func(name string, to int64) (string, []quote.Statement) {
			return fmt.Sprintf("Raise %s to %d and restart the subscriber.", name, to), alterSystemInt(onSubscriber, name, to, true)
		}
		switch want := enabled + perSub; {
		case workers < enabled:
			out = append(out, Finding{
				Severity: Error,
				Objects:  []string{"setting max_logical_replication_workers"},
				Found:    fmt.Sprintf("max_logical_replication_workers = %d for %s.", workers, plural(enabled, "enabled subscription")),
				Why:      "Each enabled subscription needs its own apply worker: the ones beyond the limit apply nothing.",
			})
			out[len(out)-1].Fix, out[len(out)-1].Run = raise("max_logical_replication_workers", want)
		case workers < want:
			out = append(out, Finding{
				Severity: Warning,
				Objects:  []string{"setting max_logical_replication_workers"},
				Found: fmt.Sprintf("max_logical_replication_workers = %d: the apply workers of %s leave %d of the %d "+
					"table synchronisation or parallel apply workers one subscription may want.", workers,
					plural(enabled, "enabled subscription"), workers-enabled, perSub),
				Why: "Table copies (max_sync_workers_per_subscription) and parallel apply of streamed transactions " +
					"(max_parallel_apply_workers_per_subscription) take workers from the same pool: without room they run " +
					"one at a time or not at all, and new tables take longer to become ready.",
			})
			out[len(out)-1].Fix, out[len(out)-1].Run = raise("max_logical_replication_workers", want)
		}
		if procs, ok := sub.Settings.Int("max_worker_processes"); ok && procs < workers+1 {
			out = append(out, Finding{
				Severity: Warning,
				Objects:  []string{"setting max_worker_processes"},
				Found:    fmt.Sprintf("max_worker_processes = %d is below max_logical_replication_workers + 1 (the launcher) = %d.", procs, workers+1),
				Why:      "Logical replication workers are background workers: max_worker_processes caps them first, shared with parallel query and extensions.",
			})
			out[len(out)-1].Fix, out[len(out)-1].Run = raise("max_worker_processes", workers+1+8)
		}
		// Each apply and tablesync worker tracks its progress in a
		// replication origin: up to 17 max_replication_slots caps them on the
		// subscriber, from 18 max_active_replication_origins.
		origins := OriginLimit(sub.Version.Major)
		if n, ok := sub.Settings.Int(origins); ok && n < enabled+sync {
			out = append(out, Finding{
				Severity: Warning,
				Objects:  []string{"setting " + origins},
				Found:    fmt.Sprintf("%s = %d on the subscriber for %s and %d table synchronisation workers each.", origins, n, plural(enabled, "enabled subscription"), sync),
				Why:      fmt.Sprintf("Every apply and tablesync worker needs a replication origin, and %s caps how many can be in use on the subscriber: workers beyond it fail to start.", origins),
			})
			out[len(out)-1].Fix, out[len(out)-1].Run = raise(origins, suggestMax(enabled+sync))
		}
		return out
	},
}
