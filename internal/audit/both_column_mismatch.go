package audit

import (
	"fmt"
	"strings"
)

// columnMismatch: published columns missing on the subscriber, of another
// type, or local NOT NULL columns the publisher does not fill.
var columnMismatch = Check{
	ID:       "column-mismatch",
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
						Objects: []string{"table " + remote.Qualified(), "subscription " + sub.Name},
						Found: fmt.Sprintf("Table %s is published by %s (subscribed by %s) but does not exist on the subscriber.",
							remote.Qualified(), strings.Join(pubs, ", "), sub.Name),
						Why: "Its changes cannot be applied: ALTER SUBSCRIPTION ... REFRESH PUBLICATION fails, and if the " +
							"subscription already lists it the apply worker stops with \"logical replication target relation " +
							"... does not exist\".",
						Fix: fmt.Sprintf("Create it on the subscriber (pg_dump --schema-only -t %s on the publisher), then "+
							"ALTER SUBSCRIPTION %s REFRESH PUBLICATION;", remote.Qualified(), ident(sub.Name)),
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
	var missing, differ, unfilled, fixes []string
	sev := Warning
	for _, rc := range remote.Columns {
		if !published[rc.Name] {
			continue
		}
		lc, ok := localCols[rc.Name]
		switch {
		case !ok:
			missing = append(missing, rc.Name+" "+rc.Type)
			fixes = append(fixes, fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s %s;", local.Qualified(), ident(rc.Name), rc.Type))
			sev = Error
		case lc.Type != rc.Type:
			differ = append(differ, fmt.Sprintf("%s is %s on the publisher, %s here", rc.Name, rc.Type, lc.Type))
			fixes = append(fixes, fmt.Sprintf("ALTER TABLE %s ALTER COLUMN %s TYPE %s;", local.Qualified(), ident(rc.Name), rc.Type))
			if sub.Binary {
				sev = Error
			}
		}
	}
	for _, lc := range local.Columns {
		if lc.NotNull && !lc.HasDefault && lc.Generated == "" && !published[lc.Name] {
			unfilled = append(unfilled, lc.Name)
			fixes = append(fixes, fmt.Sprintf("ALTER TABLE %s ALTER COLUMN %s DROP NOT NULL; -- or SET DEFAULT ...", local.Qualified(), ident(lc.Name)))
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
		Objects:  []string{"table " + local.Qualified(), "subscription " + sub.Name},
		Found:    fmt.Sprintf("Table %s (subscription %s): %s.", local.Qualified(), sub.Name, strings.Join(found, "; ")),
		Why:      why + ".",
		Fix:      strings.Join(fixes, " ") + " -- on the subscriber",
	}, true
}
