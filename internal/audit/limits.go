package audit

// Limit is a server setting that caps a replication resource, with how much
// of it was in use when the setup was read.
type Limit struct {
	// Side is "publisher" or "subscriber".
	Side    string `json:"side"`
	Setting string `json:"setting"`
	Max     int64  `json:"max"`
	Used    int64  `json:"used"`
	// Of says what Used counts.
	Of string `json:"of"`
	// Subscription names the subscription of a per-subscription limit
	// ("" for a server-wide one).
	Subscription string `json:"subscription,omitempty"`
}

// Free is how many more the limit allows.
func (l Limit) Free() int64 { return l.Max - l.Used }

// Worker types as pg_stat_subscription names them (worker_type, 17+; read
// the same way before, see readWorkers).
const (
	workerApply     = "apply"
	workerParallel  = "parallel apply"
	workerTablesync = "table synchronization"
)

// OriginLimit is the setting that caps the replication origins in use on
// a subscriber of the given major: max_active_replication_origins from 18,
// max_replication_slots before.
func OriginLimit(major int) string {
	if major >= 18 {
		return "max_active_replication_origins"
	}
	return "max_replication_slots"
}

// Limits lists the replication limits of both sides with what was in use:
// on the publisher max_replication_slots (slots) and max_wal_senders
// (walsenders running); on the subscriber max_logical_replication_workers
// (apply, tablesync and parallel apply workers of every database), the
// origin limit (apply and tablesync workers: each holds a replication
// origin; a parallel apply worker shares its leader's) and, per
// subscription, max_sync_workers_per_subscription and (16+)
// max_parallel_apply_workers_per_subscription. A limit whose setting or
// count was not read is left out.
func Limits(s Snapshots) []Limit {
	var out []Limit
	if p := s.Publisher; p != nil {
		if _, bad := p.Unreadable[PubSlots]; !bad {
			if n, ok := p.Settings.Int("max_replication_slots"); ok {
				out = append(out, Limit{Side: "publisher", Setting: "max_replication_slots", Max: n, Used: int64(len(p.Slots)), Of: "replication slots"})
			}
		}
		if _, bad := p.Unreadable[PubWalsenders]; !bad {
			if n, ok := p.Settings.Int("max_wal_senders"); ok {
				out = append(out, Limit{Side: "publisher", Setting: "max_wal_senders", Max: n, Used: int64(p.Walsenders), Of: "walsenders running"})
			}
		}
	}
	sub := s.Subscriber
	if sub == nil {
		return out
	}
	if _, bad := sub.Unreadable[SubWorkers]; bad {
		return out
	}
	count := func(ws []Worker, types ...string) (n int64) {
		for _, w := range ws {
			for _, t := range types {
				if w.Type == t {
					n++
				}
			}
		}
		return n
	}
	all := sub.OtherWorkers
	for _, x := range sub.Subscriptions {
		all = append(all, x.Workers...)
	}
	if n, ok := sub.Settings.Int("max_logical_replication_workers"); ok {
		out = append(out, Limit{Side: "subscriber", Setting: "max_logical_replication_workers", Max: n,
			Used: int64(len(all)), Of: "logical replication workers (apply, tablesync, parallel apply)"})
	}
	origins := OriginLimit(sub.Version.Major)
	if n, ok := sub.Settings.Int(origins); ok {
		out = append(out, Limit{Side: "subscriber", Setting: origins, Max: n,
			Used: count(all, workerApply, workerTablesync), Of: "replication origins in use (apply and tablesync workers)"})
	}
	for _, x := range sub.Subscriptions {
		if n, ok := sub.Settings.Int("max_sync_workers_per_subscription"); ok {
			out = append(out, Limit{Side: "subscriber", Setting: "max_sync_workers_per_subscription", Max: n,
				Used: count(x.Workers, workerTablesync), Of: "tablesync workers", Subscription: x.Name})
		}
		if n, ok := sub.Settings.Int("max_parallel_apply_workers_per_subscription"); ok && sub.Version.Major >= 16 {
			out = append(out, Limit{Side: "subscriber", Setting: "max_parallel_apply_workers_per_subscription", Max: n,
				Used: count(x.Workers, workerParallel), Of: "parallel apply workers", Subscription: x.Name})
		}
	}
	return out
}
