package audit

import "fmt"

// CheckSlotsHeadroom is the ID of slotsHeadroom: its page is docs/checks/slots-headroom.md.
const CheckSlotsHeadroom CheckID = "slots-headroom"

// slotsHeadroom: table synchronisation creates temporary slots.
var slotsHeadroom = Check{
	ID:       CheckSlotsHeadroom,
	Title:    "max_replication_slots leaves room for new slots and table copies",
	Severity: Error,
	Side:     PublisherSide,
	Needs:    []Section{PubSettings, PubSlots},
	Run: func(s Snapshots) []Finding {
		p := s.Publisher
		max, ok := p.Settings.Int("max_replication_slots")
		if !ok {
			return nil
		}
		used := int64(len(p.Slots))
		free := max - used
		if free >= 2 {
			return nil
		}
		sev := Warning
		if free <= 0 {
			sev = Error
		}
		return []Finding{{
			Severity: sev,
			Objects:  []string{"setting max_replication_slots"},
			Found:    fmt.Sprintf("max_replication_slots = %d with %s in use: %d free.", max, plural(used, "slot"), free),
			Why: "A new subscription needs a slot, and each table synchronisation worker creates a temporary one while it " +
				"copies a table. With none free, CREATE SUBSCRIPTION and table copies fail with \"all replication slots " +
				"are in use\".",
			Fix: fmt.Sprintf("Raise max_replication_slots to %d (room for 4 more than in use) and restart the publisher, or drop slots nobody reads (see inactive-slot).", suggestMax(used)),
			Run: alterSystemInt(onPublisher, "max_replication_slots", suggestMax(used), true),
		}}
	},
}
