package audit

import "fmt"

// inactiveSlot: a slot nobody reads keeps WAL until the disk fills.
var inactiveSlot = Check{
	ID:       "inactive-slot",
	Title:    "no inactive slot retains WAL",
	Severity: Warning,
	Side:     PublisherSide,
	Needs:    []Section{PubSlots},
	Run: func(s Snapshots) []Finding {
		p := s.Publisher
		var out []Finding
		for _, sl := range p.Slots {
			if sl.Active || sl.Temporary || sl.WALStatus == "lost" || sl.InvalidationReason != "" {
				continue // lost and invalidated slots are slot-wal-status findings
			}
			when := "since when is not recorded before PostgreSQL 17"
			if sl.InactiveSince != nil {
				when = "inactive since " + sl.InactiveSince.UTC().Format("2006-01-02 15:04:05 UTC") + " (" + since(p.Taken, *sl.InactiveSince) + ")"
			}
			kind := sl.Type
			if sl.Database != "" {
				kind += ", database " + sl.Database
			}
			found := fmt.Sprintf("Slot %s (%s) is inactive and retains %s of WAL; %s.", sl.Name, kind, byteSize(sl.Retained(p.CurrentLSN)), when)
			fix := fmt.Sprintf("Reconnect its consumer, or drop it if nobody will: SELECT pg_drop_replication_slot('%s');", sl.Name)
			if sub := s.Subscriber.subscriptionForSlot(sl.Name); sub != nil {
				if !sub.Enabled {
					found += fmt.Sprintf(" Its subscription %s is disabled.", sub.Name)
				}
				fix = fmt.Sprintf("On the subscriber: ALTER SUBSCRIPTION %s ENABLE; (or DROP SUBSCRIPTION %s; if it is abandoned, which drops the slot)", ident(sub.Name), ident(sub.Name))
			}
			out = append(out, Finding{
				Objects: []string{"slot " + sl.Name},
				Found:   found,
				Why: "An inactive slot keeps every WAL segment from its restart_lsn, and a logical slot also keeps catalog " +
					"rows from its catalog_xmin, until a consumer confirms progress. Unless max_slot_wal_keep_size " +
					"bounds it, the retained WAL grows until the publisher's disk is full and it stops.",
				Fix: fix,
			})
		}
		return out
	},
}
