package audit

import (
	"fmt"
	"strings"
)

// fullIdentityNoIndex: REPLICA IDENTITY FULL and no index the apply worker
// can use turns every replicated UPDATE/DELETE into a sequential scan.
var fullIdentityNoIndex = Check{
	ID:       "full-identity-no-index",
	Title:    "REPLICA IDENTITY FULL tables have an index the apply worker can use",
	Severity: Error,
	Side:     SubscriberSide,
	Needs:    []Section{SubSubscriptions, SubRels, SubTables, PubPublications, PubTables},
	Run: func(s Snapshots) []Finding {
		major := s.Subscriber.Version.Major
		var out []Finding
		seen := map[string]bool{}
		for _, l := range links(s) {
			if l.Local == nil || l.Remote == nil || l.Remote.ReplicaIdentity != "full" {
				continue
			}
			for _, t := range s.Subscriber.leaves(l.Local) {
				if seen[t.Qualified()] {
					continue
				}
				seen[t.Qualified()] = true
				lk := ApplyLookup(major, *t, true, l.RemoteColumns)
				if lk.Via != ViaSeqScan {
					continue
				}
				out = append(out, fullNoIndexFinding(major, t, l, lk))
			}
		}
		return out
	},
}

func fullNoIndexFinding(major int, t *Table, l link, lk Lookup) Finding {
	size := byteSize(t.Bytes) + "; row count unknown: never analysed"
	if t.Rows >= 0 {
		size = fmt.Sprintf("about %.0f rows, %s", t.Rows, byteSize(t.Bytes))
	}
	sev := Error
	if t.Rows >= 0 && t.Rows < 1000 {
		sev = Warning
	}
	found := fmt.Sprintf("Table %s has REPLICA IDENTITY FULL on the publisher, and the subscriber (PostgreSQL %d) has no "+
		"primary key, replica identity index or other index its apply worker can use: every replicated UPDATE or DELETE "+
		"scans the table (%s) once per changed row.", t.Qualified(), major, size)
	if major < 16 {
		found += " Before 16 only a primary key or replica identity index is used."
	}
	if major >= 16 && len(lk.Rejected) > 0 {
		var why []string
		for _, r := range lk.Rejected {
			why = append(why, r.Index+": "+r.Reason)
		}
		found += " Not usable: " + strings.Join(why, "; ") + "."
	}
	col := suggestColumn(t, l.RemoteColumns)
	fix := fmt.Sprintf("CREATE INDEX CONCURRENTLY ON %s (%s); -- on the subscriber: btree, not partial, leftmost column a "+
		"plain published column that (nearly) identifies a row", t.Qualified(), ident(col))
	switch ix := t.uniqueNotNull(); {
	case ix != nil:
		fix = fmt.Sprintf("ALTER TABLE %s REPLICA IDENTITY USING INDEX %s; -- on the subscriber (any version)", t.Qualified(), ident(ix.Name))
	case major < 16:
		fix = fmt.Sprintf("ALTER TABLE %s ADD PRIMARY KEY (%s); -- on the subscriber; better still, give the publisher's "+
			"table a primary key and drop REPLICA IDENTITY FULL (an index other than a key is used only from 16)", t.Qualified(), ident(col))
	}
	return Finding{
		Severity: sev,
		Objects:  []string{"table " + t.Qualified(), "subscription " + l.Sub.Name},
		Found:    found,
		Why: "A sequential scan per changed row makes apply time grow with table size times changes (measured on " +
			"PostgreSQL 18, 50,000 rows, 2,000 updates: 4.6 s without a usable index, 0.15 s with a btree on id, about 31x).",
		Fix: fix,
	}
}

// suggestColumn picks the column to propose for an index: id if published,
// else the first published NOT NULL column, else the first published one.
func suggestColumn(t *Table, remote map[string]bool) string {
	for _, c := range t.Columns {
		if c.Name == "id" && remote[c.Name] {
			return c.Name
		}
	}
	for _, c := range t.Columns {
		if c.NotNull && remote[c.Name] {
			return c.Name
		}
	}
	for _, c := range t.Columns {
		if remote[c.Name] {
			return c.Name
		}
	}
	return "<column>"
}
