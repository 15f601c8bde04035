package audit

import "fmt"

// CheckWALSendersHeadroom is the ID of walSendersHeadroom: its page is docs/checks/wal-senders-headroom.md.
const CheckWALSendersHeadroom CheckID = "wal-senders-headroom"

// walSendersHeadroom: every slot's consumer and every table copy needs a
// walsender.
var walSendersHeadroom = Check{
	ID:       CheckWALSendersHeadroom,
	Title:    "max_wal_senders leaves room for consumers and table copies",
	Severity: Error,
	Side:     PublisherSide,
	Needs:    []Section{PubSettings, PubSlots, PubWalsenders},
	Run: func(s Snapshots) []Finding {
		p := s.Publisher
		max, ok := p.Settings.Int("max_wal_senders")
		if !ok {
			return nil
		}
		slots := int64(0)
		for _, sl := range p.Slots {
			if !sl.Temporary {
				slots++
			}
		}
		needed := slots
		if int64(p.Walsenders) > needed {
			needed = int64(p.Walsenders)
		}
		free := max - needed
		if free >= 2 {
			return nil
		}
		sev := Warning
		if free <= 0 {
			sev = Error
		}
		return []Finding{{
			Severity: sev,
			Objects:  []string{"setting max_wal_senders"},
			Found: fmt.Sprintf("max_wal_senders = %d with %s running and %s to serve: %d free.",
				max, plural(int64(p.Walsenders), "walsender"), plural(slots, "slot"), free),
			Why: "Each slot's consumer holds one walsender, and each table synchronisation worker of a subscription " +
				"(max_sync_workers_per_subscription, 2 by default) needs another one while it copies. With none free, " +
				"new connections fail with \"number of requested standby connections exceeds max_wal_senders\" and " +
				"consumers or table copies stall.",
			Fix: fmt.Sprintf("Raise max_wal_senders to %d (room for 4 more than needed) and restart the publisher.", suggestMax(needed)),
			Run: alterSystemInt(onPublisher, "max_wal_senders", suggestMax(needed), true),
		}}
	},
}

// suggestMax is a limit with room for 4 more than needed, at least 10 (the
// default of max_wal_senders and max_replication_slots).
func suggestMax(needed int64) int64 {
	if needed+4 < 10 {
		return 10
	}
	return needed + 4
}
