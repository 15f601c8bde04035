package audit

import (
	"fmt"
	"strings"

	"github.com/lagscope/lagscope/internal/quote"
)

// CheckReplicaTriggers is the ID of replicaTriggers: its page is docs/checks/replica-triggers.md.
const CheckReplicaTriggers CheckID = "replica-triggers"

// replicaTriggers: ALWAYS and REPLICA triggers fire in the apply worker.
var replicaTriggers = Check{
	ID:       CheckReplicaTriggers,
	Title:    "no triggers fire for replicated rows",
	Severity: Warning,
	Side:     SubscriberSide,
	Needs:    []Section{SubSubscriptions, SubRels, SubTables, SubTriggers},
	Run: func(s Snapshots) []Finding {
		var out []Finding
		for _, t := range appliedTables(s, "") {
			for _, tg := range t.Triggers {
				if tg.Enabled != "always" && tg.Enabled != "replica" {
					continue
				}
				level := "statement"
				if tg.Row {
					level = "row"
				}
				out = append(out, Finding{
					Objects: []string{"trigger " + id(tg.Name), "table " + t.Qualified()},
					Found: fmt.Sprintf("Trigger %s on %s is ENABLE %s: a %s-level trigger on %s that runs %s for replicated changes.",
						id(tg.Name), t.Qualified(), strings.ToUpper(tg.Enabled), level, strings.Join(tg.Events, "/"), tg.Function),
					Why: "The apply worker runs with session_replication_role = replica, so ordinary triggers do not fire, but " +
						"ALWAYS and REPLICA ones do - a row trigger once per replicated row, inside the single apply process. " +
						"Its cost adds directly to apply time, and an error in it stops replication.",
					Fix: "If it need not run for replicated changes, enable it as an ordinary trigger: it then fires for local changes only.",
					Run: []quote.Statement{quote.SQL("ALTER TABLE %I ENABLE TRIGGER %I;", t.qname(), tg.Name).OnServer(onSubscriber).
						WithNote("takes a SHARE ROW EXCLUSIVE lock on the table: writes wait behind it, reads do not")},
				})
			}
		}
		return out
	},
}
