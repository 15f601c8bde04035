package audit

import "fmt"

// slotWALStatus: wal_status extended, unreserved or lost; invalidated slots.
var slotWALStatus = Check{
	ID:       "slot-wal-status",
	Title:    "every slot still has the WAL it needs",
	Severity: Error,
	Side:     PublisherSide,
	Needs:    []Section{PubSettings, PubSlots},
	Run: func(s Snapshots) []Finding {
		p := s.Publisher
		var out []Finding
		for _, sl := range p.Slots {
			retained := byteSize(sl.Retained(p.CurrentLSN))
			recreate := fmt.Sprintf("Drop the slot and resynchronise its consumer: for a subscription, on the subscriber ALTER SUBSCRIPTION <name> DISABLE; "+
				"ALTER SUBSCRIPTION <name> SET (slot_name = NONE); DROP SUBSCRIPTION <name>; then SELECT pg_drop_replication_slot('%s'); "+
				"on the publisher and create the subscription again (copy_data = true).", sl.Name)
			if sub := s.Subscriber.subscriptionForSlot(sl.Name); sub != nil {
				recreate = fmt.Sprintf("On the subscriber: ALTER SUBSCRIPTION %[1]s DISABLE; ALTER SUBSCRIPTION %[1]s SET (slot_name = NONE); "+
					"DROP SUBSCRIPTION %[1]s; on the publisher: SELECT pg_drop_replication_slot('%[2]s'); then create the subscription "+
					"again with copy_data = true (or resynchronise the tables another way).", ident(sub.Name), sl.Name)
			}
			f := Finding{Objects: []string{"slot " + sl.Name}}
			switch {
			case sl.WALStatus == "lost" || sl.InvalidationReason != "":
				reason := ""
				if sl.InvalidationReason != "" {
					reason = " (invalidated: " + sl.InvalidationReason + ")"
				}
				f.Severity = Error
				f.Found = fmt.Sprintf("Slot %s has wal_status = %s%s.", sl.Name, orDash(sl.WALStatus), reason)
				f.Why = "The slot no longer has the WAL (or catalog rows) its consumer needs: the consumer can never continue " +
					"from it, and every change since is missing on the subscriber until it is resynchronised."
				f.Fix = recreate
			case sl.WALStatus == "unreserved":
				f.Severity = Error
				f.Found = fmt.Sprintf("Slot %s has wal_status = unreserved: it retains %s, more than max_slot_wal_keep_size = %s.",
					sl.Name, retained, p.Settings.Show("max_slot_wal_keep_size"))
				f.Why = "The WAL it needs will be removed at the next checkpoint; the slot is then lost and its consumer " +
					"must be resynchronised. Only if the consumer catches up first does it survive."
				f.Fix = "Get its consumer running now (see inactive-slot), or raise the limit before the next checkpoint: " +
					"ALTER SYSTEM SET max_slot_wal_keep_size = '<larger>'; SELECT pg_reload_conf();"
			case sl.WALStatus == "extended":
				f.Severity = Warning
				f.Found = fmt.Sprintf("Slot %s has wal_status = extended: it retains %s, more than max_wal_size = %s.",
					sl.Name, retained, p.Settings.Show("max_wal_size"))
				f.Why = "The slot holds WAL beyond what checkpoints would keep: its consumer is far behind or gone, and the " +
					"publisher's WAL directory grows with every write until the consumer catches up."
				f.Fix = "Find why its consumer is behind (lagscope diagnose) or reconnect it (see inactive-slot); drop the slot " +
					fmt.Sprintf("if nobody reads it: SELECT pg_drop_replication_slot('%s');", sl.Name)
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
