package audit

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// failoverSafety: whether the publisher's logical slots survive a failover
// to its physical standbys (those streaming from a physical slot, and the
// one given with --standby; without either, a slot that is not a failover
// slot has nothing to survive). From 17 a failover slot is copied to standbys
// that synchronise slots (sync_replication_slots, hot_standby_feedback, a
// primary_slot_name and a dbname in primary_conninfo), and
// synchronized_standby_slots keeps its walsender from sending what those
// standbys have not received. Before 17 a standby has no copy of a logical
// slot.
var failoverSafety = Check{
	ID:       "failover-safety",
	Title:    "the logical slots survive a failover to a physical standby",
	Severity: Warning,
	Side:     PublisherSide,
	Needs:    []Section{PubSettings, PubSlots},
	Applies: func(s Snapshots) string {
		if s.Publisher.InRecovery {
			return "the publisher is a standby itself: run it against the primary"
		}
		if len(logicalSlots(s.Publisher)) == 0 {
			return "the publisher has no logical slot"
		}
		return ""
	},
	Run: func(s Snapshots) []Finding {
		p := s.Publisher
		if p.Version.Major < 17 {
			return failoverBefore17(s)
		}
		var out []Finding
		var failover []string
		physical := physicalSlots(p)
		for _, sl := range logicalSlots(p) {
			if sl.Failover {
				failover = append(failover, sl.Name)
				continue
			}
			if len(physical) == 0 && s.Standby == nil {
				continue // no standby to fail over to
			}
			out = append(out, Finding{
				Objects: []string{"slot " + sl.Name},
				Found:   fmt.Sprintf("Slot %s is not a failover slot (failover = false): no standby keeps a copy of it.", sl.Name),
				Why:     "After a failover the promoted standby has no such slot: the subscription cannot connect, and the changes made from then on until it is re-created never reach the subscriber.",
				Fix:     fmt.Sprintf("On the subscriber, for the subscription using slot %s: ALTER SUBSCRIPTION <name> DISABLE; ALTER SUBSCRIPTION <name> SET (failover = true); ALTER SUBSCRIPTION <name> ENABLE;", sl.Name),
			})
		}
		if len(failover) == 0 {
			return out
		}
		listed := settingList(p.Settings, "synchronized_standby_slots")
		if len(physical) == 0 {
			out = append(out, Finding{
				Objects: []string{"slot " + strings.Join(failover, ", ")},
				Found:   fmt.Sprintf("%s is a failover slot, but no physical standby streams from a replication slot of the publisher.", plural(int64(len(failover)), "slot")),
				Why:     "Slots are synchronised only to a standby that streams through a physical slot (primary_slot_name): without one, a failover loses the logical slots.",
				Fix:     "SELECT pg_create_physical_replication_slot('<standby>'); on the publisher, then on the standby: ALTER SYSTEM SET primary_slot_name = '<standby>'; SELECT pg_reload_conf();",
			})
		}
		for _, ph := range physical {
			if !slices.Contains(listed, ph) {
				out = append(out, Finding{
					Objects: []string{"setting synchronized_standby_slots", "slot " + ph},
					Found:   fmt.Sprintf("synchronized_standby_slots = '%s' does not list the standby slot %s.", strings.Join(listed, ","), ph),
					Why:     "The walsenders of failover slots may then send changes that the standby on that slot has not received: promoted, it would be behind its subscribers, and their slot copies ahead of the new primary's WAL.",
					Fix:     fmt.Sprintf("ALTER SYSTEM SET synchronized_standby_slots = '%s'; SELECT pg_reload_conf(); -- on the publisher", strings.Join(append(slices.Clone(listed), ph), ",")),
				})
			}
		}
		for _, l := range listed {
			if !slices.Contains(physical, l) {
				out = append(out, Finding{
					Objects: []string{"setting synchronized_standby_slots"},
					Found:   fmt.Sprintf("synchronized_standby_slots lists %s, which is not a physical slot of the publisher.", l),
					Why:     "The walsenders of failover slots wait for every listed slot: a missing one holds back every subscriber of a failover slot (lagscope diagnose names it walsender-waits-standby).",
					Fix:     fmt.Sprintf("ALTER SYSTEM SET synchronized_standby_slots = '%s'; SELECT pg_reload_conf(); -- on the publisher, without %s", strings.Join(slices.DeleteFunc(slices.Clone(listed), func(x string) bool { return x == l }), ","), l),
				})
			}
		}
		if s.Standby != nil {
			out = append(out, standbyFindings(s.Standby, failover, physical)...)
		}
		return out
	},
}

// standbyFindings checks the standby given with --standby: its settings
// for slot synchronisation and its synced copies of the failover slots.
func standbyFindings(sb *Standby, failover, physical []string) []Finding {
	var out []Finding
	set := func(name, want, why string) {
		if v, ok := sb.Settings[name]; ok && v.Value != want {
			out = append(out, Finding{
				Objects: []string{"setting " + name + " (standby)"},
				Found:   fmt.Sprintf("%s = %s on the standby.", name, v.Value),
				Why:     why,
				Fix:     fmt.Sprintf("ALTER SYSTEM SET %s = %s; SELECT pg_reload_conf(); -- on the standby", name, want),
			})
		}
	}
	if !sb.InRecovery {
		return []Finding{{
			Objects: []string{"standby"},
			Found:   "The server given with --standby is not in recovery: it is not a standby.",
			Why:     "The failover check compares a physical standby of the publisher with it.",
			Fix:     "Give --standby the connection string of a physical standby of the publisher.",
		}}
	}
	if _, bad := sb.Unreadable[StandbySettings]; !bad {
		set("sync_replication_slots", "on", "The standby does not synchronise slots: a failover to it loses every logical slot.")
		set("hot_standby_feedback", "on", "Slot synchronisation needs hot_standby_feedback: without it the slot sync worker stops with an error and the copies fall behind.")
		if v := sb.Settings["primary_slot_name"].Value; v == "" {
			out = append(out, Finding{
				Objects: []string{"setting primary_slot_name (standby)"},
				Found:   "The standby streams without a replication slot (primary_slot_name is empty).",
				Why:     "Slots are synchronised only to a standby that streams through a physical slot, listed in the primary's synchronized_standby_slots.",
				Fix:     "SELECT pg_create_physical_replication_slot('<standby>'); -- on the publisher; then ALTER SYSTEM SET primary_slot_name = '<standby>'; SELECT pg_reload_conf(); -- on the standby",
			})
		} else if !slices.Contains(physical, v) {
			out = append(out, Finding{
				Objects: []string{"setting primary_slot_name (standby)"},
				Found:   fmt.Sprintf("The standby's primary_slot_name is %s, which is not a physical slot of the publisher.", v),
				Why:     "The standby cannot stream from a slot that does not exist: it does not follow the primary, and neither do its slot copies.",
				Fix:     fmt.Sprintf("SELECT pg_create_physical_replication_slot('%s'); -- on the publisher", v),
			})
		}
	}
	if sb.ConninfoDBName != nil && !*sb.ConninfoDBName {
		out = append(out, Finding{
			Objects: []string{"setting primary_conninfo (standby)"},
			Found:   "The standby's primary_conninfo names no database (dbname).",
			Why:     "The slot sync worker connects to a database of the primary to read its slots: without dbname it does not start.",
			Fix:     "Add dbname=<a database of the primary> to primary_conninfo on the standby (ALTER SYSTEM SET primary_conninfo = '... dbname=postgres'; SELECT pg_reload_conf();)",
		})
	}
	if _, bad := sb.Unreadable[StandbySlots]; bad {
		return out
	}
	for _, name := range failover {
		i := slices.IndexFunc(sb.Slots, func(s Slot) bool { return s.Name == name })
		var why string
		switch {
		case i < 0:
			why = "has no copy on the standby"
		case !sb.Slots[i].Synced:
			why = "exists on the standby, but not as a synced copy (synced = false): a slot made there by hand does not follow the primary's"
		case sb.Slots[i].InvalidationReason != "":
			why = fmt.Sprintf("has an invalidated copy on the standby (%s)", sb.Slots[i].InvalidationReason)
		case sb.Slots[i].Temporary:
			why = "has a copy on the standby that is not ready yet (temporary until the standby has caught up with the slot): a failover now would drop it"
		default:
			continue
		}
		out = append(out, Finding{
			Objects: []string{"slot " + name},
			Found:   fmt.Sprintf("Failover slot %s %s.", name, why),
			Why:     "Only a synced, ready copy survives the standby's promotion: the subscription then connects to the new primary and goes on.",
			Fix:     "Check the standby's log for the slot sync worker (\"slot sync worker\"), and the settings above; pg_sync_replication_slots() on the standby synchronises once by hand.",
		})
	}
	return out
}

// failoverBefore17 says what a failover does to the logical slots of a
// publisher before 17, when a physical standby streams from a slot.
func failoverBefore17(s Snapshots) []Finding {
	p := s.Publisher
	physical := physicalSlots(p)
	if len(physical) == 0 {
		return nil
	}
	var names []string
	for _, sl := range logicalSlots(p) {
		names = append(names, sl.Name)
	}
	return []Finding{{
		Objects: []string{"slot " + strings.Join(names, ", ")},
		Found: fmt.Sprintf("PostgreSQL %d has no failover slots: a failover to the standby on %s loses %s.",
			p.Version.Major, strings.Join(physical, ", "), plural(int64(len(names)), "logical slot")),
		Why: "A physical standby does not keep logical slots before 17: after its promotion each subscription's slot is missing, the subscription cannot connect, and the changes made until the slot is re-created never reach the subscriber. Re-creating the subscription with copy_data = true copies its tables again.",
		Fix: "Upgrade the publisher to 17 or later for failover slots (ALTER SUBSCRIPTION ... SET (failover = true), synchronized_standby_slots, and sync_replication_slots on the standby); until then, plan for re-creating the subscriptions after a failover.",
	}}
}

// logicalSlots are the publisher's permanent logical slots, but the
// tablesync slots (gone once their copy is done).
func logicalSlots(p *Publisher) []Slot {
	var out []Slot
	for _, sl := range p.Slots {
		if sl.Type == "logical" && !sl.Temporary && !tablesyncSlot.MatchString(sl.Name) {
			out = append(out, sl)
		}
	}
	return out
}

// physicalSlots names the publisher's physical slots (its standbys').
func physicalSlots(p *Publisher) []string {
	var out []string
	for _, sl := range p.Slots {
		if sl.Type == "physical" {
			out = append(out, sl.Name)
		}
	}
	return out
}

// tablesyncSlot is a tablesync worker's slot: pg_<suboid>_sync_<relid>_<sysid>.
var tablesyncSlot = regexp.MustCompile(`^pg_\d+_sync_\d+_\d+$`)

// settingList reads a comma-separated list setting (names may be quoted).
func settingList(s Settings, name string) []string {
	var out []string
	for _, x := range strings.Split(s[name].Value, ",") {
		if x = strings.Trim(strings.TrimSpace(x), `"`); x != "" {
			out = append(out, x)
		}
	}
	return out
}
