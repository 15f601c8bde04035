package audit

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/quote"
)

// CheckInactiveSlot is the ID of inactiveSlot: its page is docs/checks/inactive-slot.md.
const CheckInactiveSlot CheckID = "inactive-slot"

// inactiveSlot: a slot nobody reads keeps WAL until the disk fills.
var inactiveSlot = Check{
	ID:       CheckInactiveSlot,
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
			found := fmt.Sprintf("Slot %s (%s) is inactive and retains %s of WAL; %s.", id(sl.Name), kind, byteSize(sl.Retained(p.CurrentLSN)), when)
			fix := "Reconnect its consumer, or drop the slot if nobody will read it again."
			run := []quote.Statement{dropSlot(sl.Name)}
			if sub := s.Subscriber.subscriptionForSlot(sl.Name); sub != nil {
				if !sub.Enabled {
					found += fmt.Sprintf(" Its subscription %s is disabled.", id(sub.Name))
				}
				fix = fmt.Sprintf("Enable its subscription %s on the subscriber; or, if the subscription is abandoned, drop it "+
					"(which drops the slot too).", id(sub.Name))
				run = []quote.Statement{
					quote.SQL("ALTER SUBSCRIPTION %I ENABLE;", sub.Name).OnServer(onSubscriber),
					quote.SQL("DROP SUBSCRIPTION %I;", sub.Name).OnServer(onSubscriber).
						Or("only if the subscription is abandoned").WithNote("drops it and its slot; its tables stop receiving changes"),
				}
			}
			out = append(out, Finding{
				Objects: []string{"slot " + id(sl.Name)},
				Found:   found,
				Why: "An inactive slot keeps every WAL segment from its restart_lsn, and a logical slot also keeps catalog " +
					"rows from its catalog_xmin, until a consumer confirms progress. Unless max_slot_wal_keep_size " +
					"bounds it, the retained WAL grows until the publisher's disk is full and it stops.",
				Fix: fix,
				Run: run,
			})
		}
		return out
	},
}
