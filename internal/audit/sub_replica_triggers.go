package audit

import (
	"fmt"
	"strings"
)

// replicaTriggers: ALWAYS and REPLICA triggers fire in the apply worker.
var replicaTriggers = Check{
	ID:       "replica-triggers",
	Title:    "no triggers fire for replicated rows",
	Severity: Warning,
	Side:     SubscriberSide,
	Needs:    []Section{SubSubscriptions, SubRels, SubTables, SubTriggers},
	Run: func(s Snapshots) []Finding {
		var out []Finding
		seen := map[string]bool{}
		for _, l := range links(s) {
			if l.Local == nil {
				continue
			}
			tables := append([]*Table{l.Local}, s.Subscriber.leaves(l.Local)...)
			for _, t := range tables {
				if seen[t.Qualified()] {
					continue
				}
				seen[t.Qualified()] = true
				for _, tg := range t.Triggers {
					if tg.Enabled != "always" && tg.Enabled != "replica" {
						continue
					}
					level := "statement"
					if tg.Row {
						level = "row"
					}
					out = append(out, Finding{
						Objects: []string{"trigger " + tg.Name, "table " + t.Qualified()},
						Found: fmt.Sprintf("Trigger %s on %s is ENABLE %s: a %s-level trigger on %s that runs %s for replicated changes.",
							tg.Name, t.Qualified(), strings.ToUpper(tg.Enabled), level, strings.Join(tg.Events, "/"), tg.Function),
						Why: "The apply worker runs with session_replication_role = replica, so ordinary triggers do not fire, but " +
							"ALWAYS and REPLICA ones do - a row trigger once per replicated row, inside the single apply process. " +
							"Its cost adds directly to apply time, and an error in it stops replication.",
						Fix: fmt.Sprintf("If it need not run for replicated changes: ALTER TABLE %s ENABLE TRIGGER %s; "+
							"(fires for local changes only)", t.Qualified(), ident(tg.Name)),
					})
				}
			}
		}
		return out
	},
}
