package audit

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/lagscope/lagscope/internal/units"
)

// link is one table a subscription receives: the local table and what the
// publisher sends for it.
type link struct {
	Sub   *Subscription
	Rel   SubscriptionRel
	Local *Table // nil when the subscriber's table is gone
	// Remote is the publisher's table of the same name published by one of
	// the subscription's publications (nil when there is none, or no
	// publisher snapshot).
	Remote *Table
	// RemoteColumns are the columns the publisher sends (the union over the
	// subscription's publications).
	RemoteColumns map[string]bool
}

// links pairs every subscription relation with its local and remote table.
// The local table is the relation's OID (srrelid); the remote one is the
// publisher's table of the same schema and name, as the apply worker maps
// them. Names are compared as they are, never as quoted text.
func links(s Snapshots) []link {
	var out []link
	if s.Subscriber == nil {
		return nil
	}
	for i := range s.Subscriber.Subscriptions {
		sub := &s.Subscriber.Subscriptions[i]
		for _, rel := range sub.Relations {
			l := link{Sub: sub, Rel: rel, Local: s.Subscriber.relTable(rel)}
			if s.Publisher != nil {
				l.Remote, l.RemoteColumns = s.Publisher.published(rel, l.Local, sub.Publications)
			}
			out = append(out, l)
		}
	}
	return out
}

// relTable finds the local table of a subscription relation: by OID, or by
// its quoted name in a snapshot written before relations carried OIDs.
func (s *Subscriber) relTable(rel SubscriptionRel) *Table {
	if rel.OID == 0 {
		return s.table(rel.Table)
	}
	for i := range s.Tables {
		if s.Tables[i].OID == rel.OID {
			return &s.Tables[i]
		}
	}
	return nil
}

// table finds a subscriber table by qualified name (as Table.Qualified
// spells it).
func (s *Subscriber) table(name string) *Table {
	for i := range s.Tables {
		if s.Tables[i].Qualified() == name {
			return &s.Tables[i]
		}
	}
	return nil
}

// leaves returns the leaf partitions of a partitioned table t (at any
// depth), or t itself.
func (s *Subscriber) leaves(t *Table) []*Table {
	if t.Kind != "partitioned table" {
		return []*Table{t}
	}
	byOID := tablesByOID(s.Tables)
	var out []*Table
	for i := range s.Tables {
		x := &s.Tables[i]
		if x.Kind != "partitioned table" && below(x, t, byOID) {
			out = append(out, x)
		}
	}
	return out
}

// below reports whether x is a partition of t at any depth: by the
// parents' OIDs, or in a snapshot written before tables carried them, by
// the root's name.
func below(x, t *Table, byOID map[uint32]*Table) bool {
	if x.Parent == 0 {
		return x.PartitionOf != "" && x.PartitionOf == t.Qualified()
	}
	for p, n := x.Parent, 0; p != 0 && n <= len(byOID); n++ {
		if p == t.OID {
			return true
		}
		up := byOID[p]
		if up == nil {
			return false
		}
		p = up.Parent
	}
	return false
}

// published returns the publisher's table that any of pubs publishes under
// the names of the subscription relation rel (whose local table, when
// read, is local), with the union of its published columns.
func (p *Publisher) published(rel SubscriptionRel, local *Table, pubs []string) (*Table, map[string]bool) {
	schema, name := rel.Schema, rel.Name
	if name == "" && local != nil {
		schema, name = local.Schema, local.Name
	}
	for i := range p.Tables {
		t := &p.Tables[i]
		if name != "" && (t.Schema != schema || t.Name != name) || name == "" && t.Qualified() != rel.Table {
			continue
		}
		cols := map[string]bool{}
		found := false
		for _, e := range t.Published {
			if contains(pubs, e.Publication) {
				found = true
				for _, c := range e.Columns {
					cols[c] = true
				}
			}
		}
		if found {
			return t, cols
		}
	}
	return nil, nil
}

// publication finds a publication by name.
func (p *Publisher) publication(name string) *Publication {
	for i := range p.Publications {
		if p.Publications[i].Name == name {
			return &p.Publications[i]
		}
	}
	return nil
}

// publishesChanges reports whether any publication publishing t publishes
// UPDATE or DELETE, and lists those publications.
func (p *Publisher) publishesChanges(t Table) (bool, []string) {
	var pubs []string
	for _, e := range t.Published {
		if pb := p.publication(e.Publication); pb != nil && (pb.Update || pb.Delete) {
			pubs = append(pubs, e.Publication)
		}
	}
	return len(pubs) > 0, pubs
}

// primaryKey returns t's primary key index, or nil.
func (t Table) primaryKey() *Index {
	for i := range t.Indexes {
		if t.Indexes[i].Primary {
			return &t.Indexes[i]
		}
	}
	return nil
}

// uniqueNotNull returns a unique, immediate, valid, non-partial index on
// NOT NULL plain columns: one REPLICA IDENTITY USING INDEX accepts.
func (t Table) uniqueNotNull() *Index {
	notNull := map[string]bool{}
	for _, c := range t.Columns {
		notNull[c.Name] = c.NotNull
	}
	for i, ix := range t.Indexes {
		if !ix.Unique || !ix.Immediate || !ix.Valid || ix.Predicate != "" || len(ix.Keys) == 0 {
			continue
		}
		ok := true
		for _, k := range ix.Keys {
			if k.Attnum == 0 || !notNull[k.Column] {
				ok = false
			}
		}
		if ok {
			return &t.Indexes[i]
		}
	}
	return nil
}

// keyColumns lists an index's key columns (expressions as written).
func (ix Index) keyColumns() []string {
	out := make([]string, len(ix.Keys))
	for i, k := range ix.Keys {
		out[i] = k.name()
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// byteSize prints a byte count for people (SI units, as the rest of lagscope).
func byteSize(n int64) string { return units.FormatBytes(float64(n)) }

// plural returns "1 slot" or "3 slots".
func plural(n int64, one string) string {
	if n == 1 {
		return "1 " + one
	}
	if strings.HasSuffix(one, "x") || strings.HasSuffix(one, "s") {
		return fmt.Sprintf("%d %ses", n, one)
	}
	return fmt.Sprintf("%d %ss", n, one)
}

// since prints how long before now t was: "40s ago", "3h12m ago", "9 days ago".
func since(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%.0fs ago", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm ago", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%.0f days ago", d.Hours()/24)
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// subscriptionForSlot finds the subscription consuming slot (nil when there
// is no subscriber snapshot or no such subscription).
func (s *Subscriber) subscriptionForSlot(slot string) *Subscription {
	if s == nil {
		return nil
	}
	for i := range s.Subscriptions {
		if s.Subscriptions[i].Slot == slot {
			return &s.Subscriptions[i]
		}
	}
	return nil
}
