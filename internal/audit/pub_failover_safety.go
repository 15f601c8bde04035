package audit

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/lagscope/lagscope/internal/quote"
)

// CheckFailoverSafety is the ID of failoverSafety: its page is docs/checks/failover-safety.md.
const CheckFailoverSafety CheckID = "failover-safety"

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
	ID:       CheckFailoverSafety,
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
			f := Finding{
				Objects: []string{"slot " + id(sl.Name)},
				Found:   fmt.Sprintf("Slot %s is not a failover slot (failover = false): no standby keeps a copy of it.", id(sl.Name)),
				Why:     "After a failover the promoted standby has no such slot: the subscription cannot connect, and the changes made from then on until it is re-created never reach the subscriber.",
				Fix: fmt.Sprintf("On the subscriber, disable the subscription that uses slot %s (lagscope did not read it: the one "+
					"whose slot_name is %s), set its failover option to true, and enable it again.", id(sl.Name), id(sl.Name)),
			}
			if sub := s.Subscriber.subscriptionForSlot(sl.Name); sub != nil {
				f.Fix = fmt.Sprintf("Make subscription %s a failover subscription: disable it, set failover = true, enable it again.", id(sub.Name))
				f.Run = []quote.Statement{
					quote.SQL("ALTER SUBSCRIPTION %I DISABLE;", sub.Name).OnServer(onSubscriber),
					quote.SQL("ALTER SUBSCRIPTION %I SET (failover = true);", sub.Name).OnServer(onSubscriber).
						WithNote("once the publisher has released the slot: if it says the slot is active, wait a moment and run it again"),
					quote.SQL("ALTER SUBSCRIPTION %I ENABLE;", sub.Name).OnServer(onSubscriber),
				}
			}
			out = append(out, f)
		}
		if len(failover) == 0 {
			return out
		}
		listed := settingList(p.Settings, "synchronized_standby_slots")
		if len(physical) == 0 {
			out = append(out, Finding{
				Objects: []string{"slot " + ids(failover)},
				Found:   fmt.Sprintf("%s is a failover slot, but no physical standby streams from a replication slot of the publisher.", plural(int64(len(failover)), "slot")),
				Why:     "Slots are synchronised only to a standby that streams through a physical slot (primary_slot_name): without one, a failover loses the logical slots.",
				Fix: "Create a physical replication slot for each standby on the publisher and set the standby's primary_slot_name " +
					"to it, then reload the standby (lagscope cannot know the standbys' names).",
			})
		}
		// The setting lagscope proposes lists exactly the physical slots a
		// standby is connected to now: an inactive slot in it would hold
		// back every failover slot until its standby connects.
		connected := activePhysicalSlots(p)
		fixed := syncStandbySlots(connected)
		for _, ph := range connected {
			if !slices.Contains(listed, ph) {
				out = append(out, Finding{
					Objects: []string{"setting synchronized_standby_slots", "slot " + id(ph)},
					Found:   fmt.Sprintf("synchronized_standby_slots = '%s' does not list the slot %s of a connected standby.", strings.Join(listed, ","), id(ph)),
					Why:     "The walsenders of failover slots may then send changes that the standby on that slot has not received: promoted, it would be behind its subscribers, and their slot copies ahead of the new primary's WAL.",
					Fix:     fmt.Sprintf("List the physical slots of the standbys connected now (%s) in synchronized_standby_slots on the publisher, and reload it; slots no standby is connected to are left out.", ids(connected)),
					Run:     fixed,
				})
			}
		}
		for _, l := range listed {
			why := ""
			switch {
			case !slices.Contains(physical, l):
				why = "which is not a physical slot of the publisher"
			case !slices.Contains(connected, l):
				why = "a physical slot no standby is connected to now"
			default:
				continue
			}
			out = append(out, Finding{
				Objects: []string{"setting synchronized_standby_slots", "slot " + id(l)},
				Found:   fmt.Sprintf("synchronized_standby_slots lists %s, %s.", id(l), why),
				Why:     "The walsenders of failover slots wait for every listed slot: a missing or idle one holds back every subscriber of a failover slot (lagscope diagnose names it walsender-waits-standby).",
				Fix:     fmt.Sprintf("List only the physical slots of the standbys connected now in synchronized_standby_slots on the publisher (%s), and reload it; add %s back once its standby streams again.", orNone(ids(connected)), id(l)),
				Run:     fixed,
			})
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
				Fix:     fmt.Sprintf("Set %s to %s on the standby and reload it.", name, want),
				Run:     alterSystem(onStandby, name, want, false),
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
				Fix:     "Create a physical replication slot for this standby on the publisher, set the standby's primary_slot_name to it and reload the standby, then list the slot in the publisher's synchronized_standby_slots.",
			})
		} else if !slices.Contains(physical, v) {
			out = append(out, Finding{
				Objects: []string{"setting primary_slot_name (standby)"},
				Found:   fmt.Sprintf("The standby's primary_slot_name is %s, which is not a physical slot of the publisher.", id(v)),
				Why:     "The standby cannot stream from a slot that does not exist: it does not follow the primary, and neither do its slot copies.",
				Fix:     fmt.Sprintf("Create the physical slot %s on the publisher.", id(v)),
				Run:     []quote.Statement{quote.SQL("SELECT pg_create_physical_replication_slot(%L);", v).OnServer(onPublisher)},
			})
		}
	}
	if sb.ConninfoDBName != nil && !*sb.ConninfoDBName {
		out = append(out, Finding{
			Objects: []string{"setting primary_conninfo (standby)"},
			Found:   "The standby's primary_conninfo names no database (dbname).",
			Why:     "The slot sync worker connects to a database of the primary to read its slots: without dbname it does not start.",
			Fix:     "Add dbname= and a database of the primary (postgres will do) to the standby's primary_conninfo, then reload the standby. lagscope does not print the setting: it does not keep the conninfo, which may hold a password.",
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
			Objects: []string{"slot " + id(name)},
			Found:   fmt.Sprintf("Failover slot %s %s.", id(name), why),
			Why:     "Only a synced, ready copy survives the standby's promotion: the subscription then connects to the new primary and goes on.",
			Fix:     "Check the standby's log for the slot sync worker (\"slot sync worker\"), and the settings above; the statement below synchronises the slots once by hand.",
			Run: []quote.Statement{quote.SQL("SELECT pg_sync_replication_slots();").OnServer(onStandby).
				WithNote("once by hand; the slot sync worker keeps the copies in step when the settings are right")},
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
		names = append(names, id(sl.Name))
	}
	return []Finding{{
		Objects: []string{"slot " + strings.Join(names, ", ")},
		Found: fmt.Sprintf("PostgreSQL %d has no failover slots: a failover to the standby on %s loses %s.",
			p.Version.Major, ids(physical), plural(int64(len(names)), "logical slot")),
		Why: "A physical standby does not keep logical slots before 17: after its promotion each subscription's slot is missing, the subscription cannot connect, and the changes made until the slot is re-created never reach the subscriber. Re-creating the subscription with copy_data = true copies its tables again.",
		Fix: "Upgrade the publisher to 17 or later for failover slots (a subscription's failover option, synchronized_standby_slots, and sync_replication_slots on the standby); until then, plan for re-creating the subscriptions after a failover.",
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

// activePhysicalSlots names the physical slots a standby streams from now.
func activePhysicalSlots(p *Publisher) []string {
	var out []string
	for _, sl := range p.Slots {
		if sl.Type == "physical" && sl.Active {
			out = append(out, sl.Name)
		}
	}
	return out
}

// syncStandbySlots sets synchronized_standby_slots to slots on the
// publisher (reset when there are none). Slot names are [a-z0-9_] only, so
// the list is one literal.
func syncStandbySlots(slots []string) []quote.Statement {
	if len(slots) == 0 {
		return []quote.Statement{quote.SQL("ALTER SYSTEM RESET synchronized_standby_slots;").OnServer(onPublisher).
			WithNote("no standby is connected through a slot now"), quote.SQL("SELECT pg_reload_conf();").OnServer(onPublisher)}
	}
	return alterSystem(onPublisher, "synchronized_standby_slots", strings.Join(slots, ","), false)
}

// orNone is s, or "none" when empty.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
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
