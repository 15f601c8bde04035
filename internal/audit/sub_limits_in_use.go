package audit

import "fmt"

// CheckLimitsInUse is the ID of limitsInUse: its page is docs/checks/limits-in-use.md.
const CheckLimitsInUse CheckID = "limits-in-use"

// limitsInUse: the subscriber's worker and origin limits against what was
// running when the setup was read (worker-headroom compares them with
// what the subscriptions may want; this one with what they hold).
var limitsInUse = Check{
	ID:       CheckLimitsInUse,
	Title:    "the subscriber's worker and origin limits have room left",
	Severity: Warning,
	Side:     SubscriberSide,
	Needs:    []Section{SubSettings, SubSubscriptions, SubWorkers},
	Run: func(s Snapshots) []Finding {
		var out []Finding
		for _, l := range Limits(s) {
			if l.Side != "subscriber" || l.Used == 0 || l.Free() > 0 {
				continue
			}
			out = append(out, limitFinding(l))
		}
		return out
	},
}

// limitFinding says what a limit with no room left stops, and how to
// raise it.
func limitFinding(l Limit) Finding {
	f := Finding{
		Severity: Warning,
		Objects:  []string{"setting " + l.Setting},
		Found:    fmt.Sprintf("%s = %d, and %d %s are in use: none left.", l.Setting, l.Max, l.Used, l.Of),
		Fix:      fmt.Sprintf("Raise %s to %d (room for 4 more than in use) and restart the subscriber.", l.Setting, suggestMax(l.Used)),
		Run:      alterSystemInt(onSubscriber, l.Setting, suggestMax(l.Used), true),
	}
	switch l.Setting {
	case "max_logical_replication_workers":
		f.Why = "A new subscription, a table copy or a parallel apply worker cannot start: the server logs \"out of logical replication worker slots\" and the work waits or falls back to the leader."
	case "max_active_replication_origins", "max_replication_slots":
		f.Why = fmt.Sprintf("Every apply and tablesync worker holds a replication origin and %s caps how many can be in use on the subscriber: the next worker fails with \"could not find free replication state slot for replication origin\".", l.Setting)
	case "max_sync_workers_per_subscription":
		f.Severity = Info
		f.Objects = append(f.Objects, "subscription "+id(l.Subscription))
		f.Found = fmt.Sprintf("Subscription %s copies %d tables at once, max_sync_workers_per_subscription = %d: further tables wait for a worker.", id(l.Subscription), l.Used, l.Max)
		f.Why = "Expected during a large initial synchronisation; raise it (with max_logical_replication_workers) only when the copies, not the link or the disks, are what takes long."
		f.Fix = fmt.Sprintf("Raise max_sync_workers_per_subscription to %d and reload the subscriber.", l.Max+2)
		f.Run = alterSystemInt(onSubscriber, "max_sync_workers_per_subscription", l.Max+2, false)
	case "max_parallel_apply_workers_per_subscription":
		f.Severity = Info
		f.Objects = append(f.Objects, "subscription "+id(l.Subscription))
		f.Found = fmt.Sprintf("Subscription %s has %d parallel apply workers, max_parallel_apply_workers_per_subscription = %d: a further streamed transaction is applied by the leader.", id(l.Subscription), l.Used, l.Max)
		f.Why = "The leader then serialises the streamed changes to a file and applies them at commit, as with streaming = on."
		f.Fix = fmt.Sprintf("Raise max_parallel_apply_workers_per_subscription to %d and reload the subscriber.", l.Max+2)
		f.Run = alterSystemInt(onSubscriber, "max_parallel_apply_workers_per_subscription", l.Max+2, false)
	}
	return f
}
