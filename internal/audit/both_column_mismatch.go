package audit

import (
	"fmt"
	"strings"

	"github.com/lagscope/lagscope/internal/quote"
)

// CheckColumnMismatch is the ID of columnMismatch: its page is docs/checks/column-mismatch.md.
const CheckColumnMismatch CheckID = "column-mismatch"

// columnMismatch: published columns missing on the subscriber, of another
// type, or local NOT NULL columns the publisher does not fill.
var columnMismatch = Check{
	ID:       CheckColumnMismatch,
	Title:    "published columns exist on the subscriber with the same types",
	Severity: Error,
	Side:     BothSides,
	Needs:    []Section{PubPublications, PubTables, SubSubscriptions, SubRels, SubTables},
	Run: func(s Snapshots) []Finding {
		var out []Finding
		seen := map[string]bool{}
		for _, sub := range s.Subscriber.Subscriptions {
			for _, remote := range s.Publisher.Tables {
				cols := map[string]bool{}
				var pubs []string
				for _, e := range remote.Published {
					if contains(sub.Publications, e.Publication) {
						pubs = append(pubs, e.Publication)
						for _, c := range e.Columns {
							cols[c] = true
						}
					}
				}
				key := sub.Name + " " + remote.Qualified()
				if len(pubs) == 0 || seen[key] {
					continue
				}
				seen[key] = true
				local := s.Subscriber.table(remote.Qualified())
				if local == nil {
					out = append(out, Finding{
						Objects: []string{"table " + remote.Qualified(), "subscription " + id(sub.Name)},
						Found: fmt.Sprintf("Table %s is published by %s (subscribed by %s) but does not exist on the subscriber.",
							remote.Qualified(), ids(pubs), id(sub.Name)),
						Why: "Its changes cannot be applied: ALTER SUBSCRIPTION ... REFRESH PUBLICATION fails, and if the " +
							"subscription already lists it the apply worker stops with \"logical replication target relation " +
							"... does not exist\".",
						Fix: fmt.Sprintf("Create it on the subscriber from the publisher's definition (dump its schema with the "+
							"command below, adding the publisher's connection options, and load the output into the subscriber's "+
							"database), then refresh subscription %s's publications.", id(sub.Name)),
						Run: []quote.Statement{
							quote.Command("pg_dump", "--schema-only", "-t", quote.DumpPattern(remote.Schema, remote.Name)).
								WithNote("on a host that reaches the publisher, with its connection options added; load the output into the subscriber's database"),
							quote.SQL("ALTER SUBSCRIPTION %I REFRESH PUBLICATION;", sub.Name).OnServer(onSubscriber),
						},
					})
					continue
				}
				if f, ok := compareColumns(sub, remote, *local, cols); ok {
					out = append(out, f)
				}
			}
		}
		return out
	},
}

// compareColumns compares the published columns of remote with local.
func compareColumns(sub Subscription, remote, local Table, published map[string]bool) (Finding, bool) {
	localCols := map[string]Column{}
	for _, c := range local.Columns {
		localCols[c.Name] = c
	}
	var missing, differ, unfilled []string
	var fixes []quote.Statement
	sev := Warning
	for _, rc := range remote.Columns {
		if !published[rc.Name] {
			continue
		}
		lc, ok := localCols[rc.Name]
		switch {
		case !ok:
			missing = append(missing, id(rc.Name)+" "+rc.Type)
			// The type is the publisher's format_type text: SQL the server printed.
			fixes = append(fixes, quote.SQL("ALTER TABLE %I ADD COLUMN %I %s;", local.qname(), rc.Name, quote.Raw(rc.Type)).
				OnServer(onSubscriber).WithNote(lockNote+"; brief: a column without a default does not rewrite the table"))
			sev = Error
		case lc.Type != rc.Type:
			differ = append(differ, fmt.Sprintf("%s is %s on the publisher, %s here", id(rc.Name), rc.Type, lc.Type))
			fixes = append(fixes, quote.SQL("ALTER TABLE %I ALTER COLUMN %I TYPE %s;", local.qname(), rc.Name, quote.Raw(rc.Type)).
				OnServer(onSubscriber).WithNote(lockNote+"; most type changes rewrite the whole table (and its indexes) under that lock, which has no concurrent form"))
			if sub.Binary {
				sev = Error
			}
		}
	}
	for _, lc := range local.Columns {
		if lc.NotNull && !lc.HasDefault && lc.Generated == "" && !published[lc.Name] {
			unfilled = append(unfilled, id(lc.Name))
			fixes = append(fixes, quote.SQL("ALTER TABLE %I ALTER COLUMN %I DROP NOT NULL;", local.qname(), lc.Name).
				OnServer(onSubscriber).WithNote(lockNote+"; or give the column a default instead"))
			sev = Error
		}
	}
	if len(missing)+len(differ)+len(unfilled) == 0 {
		return Finding{}, false
	}
	var found []string
	if len(missing) > 0 {
		found = append(found, "published columns missing on the subscriber: "+strings.Join(missing, ", "))
	}
	if len(differ) > 0 {
		found = append(found, "types differ: "+strings.Join(differ, "; "))
	}
	if len(unfilled) > 0 {
		found = append(found, "NOT NULL columns without a default that the publisher does not send: "+strings.Join(unfilled, ", "))
	}
	why := "A missing column stops the apply worker (\"logical replication target relation ... is missing replicated " +
		"column(s)\"), and an unfilled NOT NULL column fails every INSERT. A different type is converted through text, " +
		"which can fail or lose precision"
	if sub.Binary {
		why += "; with binary = true the binary input of a different type fails outright"
	}
	return Finding{
		Severity: sev,
		Objects:  []string{"table " + local.Qualified(), "subscription " + id(sub.Name)},
		Found:    fmt.Sprintf("Table %s (subscription %s): %s.", local.Qualified(), id(sub.Name), strings.Join(found, "; ")),
		Why:      why + ".",
		Fix: "On the subscriber, add the missing columns with the publisher's types, change the differing types to the " +
			"publisher's, and let the NOT NULL columns the publisher does not send be NULL (or give them a default).",
		Run: fixes,
	}, true
}
