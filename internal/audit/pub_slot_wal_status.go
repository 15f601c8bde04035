package audit

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/quote"
)

// CheckSlotWALStatus is the ID of slotWALStatus: its page is docs/checks/slot-wal-status.md.
const CheckSlotWALStatus CheckID = "slot-wal-status"

// slotWALStatus: wal_status extended, unreserved or lost; invalidated slots.
var slotWALStatus = Check{
	ID:       CheckSlotWALStatus,
	Title:    "every slot still has the WAL it needs",
	Severity: Error,
	Side:     PublisherSide,
	Needs:    []Section{PubSettings, PubSlots},
	Run: func(s Snapshots) []Finding {
		p := s.Publisher
		var out []Finding
		for _, sl := range p.Slots {
			retained := byteSize(sl.Retained(p.CurrentLSN))
			recreate := fmt.Sprintf("Drop the slot and resynchronise its consumer. For a subscription (lagscope did not read "+
				"the subscriber that owns %s): on the subscriber disable it, detach it from the slot (slot_name = NONE) and drop "+
				"it; then drop the slot on the publisher and create the subscription again with copy_data = true.", id(sl.Name))
			recreateRun := []quote.Statement{dropSlot(sl.Name)}
			if sub := s.Subscriber.subscriptionForSlot(sl.Name); sub != nil {
				recreate = fmt.Sprintf("Drop subscription %s (detached from its slot) on the subscriber and the slot on the "+
					"publisher, then create the subscription again with copy_data = true (or resynchronise the tables another way).", id(sub.Name))
				recreateRun = []quote.Statement{
					quote.SQL("ALTER SUBSCRIPTION %I DISABLE;", sub.Name).OnServer(onSubscriber),
					quote.SQL("ALTER SUBSCRIPTION %I SET (slot_name = NONE);", sub.Name).OnServer(onSubscriber),
					quote.SQL("DROP SUBSCRIPTION %I;", sub.Name).OnServer(onSubscriber).WithNote("its tables receive nothing until it is created again"),
					recreateRun[0],
				}
			}
			f := Finding{Objects: []string{"slot " + id(sl.Name)}}
			switch {
			case sl.WALStatus == "lost" || sl.InvalidationReason != "":
				reason := ""
				if sl.InvalidationReason != "" {
					reason = " (invalidated: " + sl.InvalidationReason + ")"
				}
				f.Severity = Error
				f.Found = fmt.Sprintf("Slot %s has wal_status = %s%s.", id(sl.Name), orDash(sl.WALStatus), reason)
				f.Why = "The slot no longer has the WAL (or catalog rows) its consumer needs: the consumer can never continue " +
					"from it, and every change since is missing on the subscriber until it is resynchronised."
				f.Fix, f.Run = recreate, recreateRun
			case sl.WALStatus == "unreserved":
				f.Severity = Error
				f.Found = fmt.Sprintf("Slot %s has wal_status = unreserved: it retains %s, more than max_slot_wal_keep_size = %s.",
					id(sl.Name), retained, p.Settings.Show("max_slot_wal_keep_size"))
				f.Why = "The WAL it needs will be removed at the next checkpoint; the slot is then lost and its consumer " +
					"must be resynchronised. Only if the consumer catches up first does it survive."
				keep := roundUpGB(sl.Retained(p.CurrentLSN) * 3 / 2)
				f.Fix = fmt.Sprintf("Get its consumer running now (see inactive-slot), or raise max_slot_wal_keep_size before the "+
					"next checkpoint, above what the slot retains (to %s here), if the publisher's WAL disk can hold that much.", keep)
				f.Run = alterSystem(onPublisher, "max_slot_wal_keep_size", keep, false)
				f.Run[0] = f.Run[0].WithNote("only if the WAL disk holds " + keep + " more")
			case sl.WALStatus == "extended":
				f.Severity = Warning
				f.Found = fmt.Sprintf("Slot %s has wal_status = extended: it retains %s, more than max_wal_size = %s.",
					id(sl.Name), retained, p.Settings.Show("max_wal_size"))
				f.Why = "The slot holds WAL beyond what checkpoints would keep: its consumer is far behind or gone, and the " +
					"publisher's WAL directory grows with every write until the consumer catches up."
				f.Fix = "Find why its consumer is behind (lagscope diagnose) or reconnect it (see inactive-slot); drop the slot " +
					"if nobody reads it."
				f.Run = []quote.Statement{dropSlot(sl.Name)}
			default:
				continue
			}
			out = append(out, f)
		}
		return out
	},
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// roundUpGB prints n bytes rounded up to whole gigabytes, at least 1GB.
func roundUpGB(n int64) string {
	gb := (n + 1<<30 - 1) >> 30
	return fmt.Sprintf("%dGB", max(gb, 1))
}
