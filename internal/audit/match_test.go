package audit

import (
	"testing"
)

// keyword is a snapshot pair around public."position", a name that
// PostgreSQL's quote_ident quotes: the relation as read now (with its OID
// and names) and as a snapshot written before relations carried them.
func keyword(rel SubscriptionRel) Snapshots {
	s := healthy()
	for _, t := range []*Table{&s.Publisher.Tables[0], &s.Subscriber.Tables[0]} {
		t.Name = "position"
	}
	s.Subscriber.Tables[0].OID = 20001
	// A table of the same name in another schema is not the one published.
	other := orders()
	other.OID, other.Schema, other.Name = 20002, "archive", "position"
	s.Subscriber.Tables = append(s.Subscriber.Tables, other)
	s.Subscriber.Subscriptions[0].Relations = []SubscriptionRel{rel}
	return s
}

func TestLinksMatchTablesByOIDAndNamesAsTheyAre(t *testing.T) {
	cases := []struct {
		name       string
		rel        SubscriptionRel
		wantLocal  uint32 // 0: none
		wantRemote bool
	}{
		{"a relation finds its table by OID, whatever its name is spelled as",
			SubscriptionRel{Table: `public."position"`, OID: 20001, Schema: "public", Name: "position", State: "r"}, 20001, true},
		{"a relation whose OID is not among the tables finds none, even by name",
			SubscriptionRel{Table: Table{Schema: "public", Name: "position"}.Qualified(), OID: 30000, Schema: "public", Name: "position", State: "r"}, 0, true},
		{"a relation in another schema finds its own table and no published one",
			SubscriptionRel{Table: "archive.position", OID: 20002, Schema: "archive", Name: "position", State: "r"}, 20002, false},
		{"a snapshot without OIDs matches by the name as Table.Qualified spells it",
			SubscriptionRel{Table: Table{Schema: "public", Name: "position"}.Qualified(), State: "r"}, 20001, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ls := links(keyword(c.rel))
			if len(ls) != 1 {
				t.Fatalf("%d links, want 1", len(ls))
			}
			l := ls[0]
			switch {
			case c.wantLocal == 0 && l.Local != nil:
				t.Errorf("local table %d %s, want none", l.Local.OID, l.Local.Qualified())
			case c.wantLocal != 0 && (l.Local == nil || l.Local.OID != c.wantLocal):
				t.Errorf("local table %+v, want oid %d", l.Local, c.wantLocal)
			}
			if got := l.Remote != nil; got != c.wantRemote {
				t.Errorf("remote table found: %v, want %v", got, c.wantRemote)
			}
			if c.wantRemote && l.Remote != nil && !l.RemoteColumns["id"] {
				t.Errorf("remote columns %v: want the published ones", l.RemoteColumns)
			}
		})
	}
}

// The apply-side checks see public."position" (they missed it when the
// relation's name came quoted by quote_ident and the table's by ident).
func TestAKeywordTableIsCheckedLikeAnyOther(t *testing.T) {
	s := fullEvents(keyword(SubscriptionRel{Table: `public."position"`, OID: 20001, Schema: "public", Name: "position", State: "r"}))
	s.Subscriber.Tables[0].Triggers = []Trigger{{Name: "touch", Enabled: "always", Function: "touch()", Row: true, Events: []string{"UPDATE"}}}
	want := map[string]bool{"full-identity-no-index": false, "replica-triggers": false}
	for _, r := range Run(s, All) {
		for _, f := range r.Findings {
			if _, ok := want[f.Check]; ok && contains(f.Objects, "table "+s.Subscriber.Tables[0].Qualified()) {
				want[f.Check] = true
			}
		}
	}
	for check, found := range want {
		if !found {
			t.Errorf("%s does not name the table", check)
		}
	}
}

func TestLeavesFollowParentsAtAnyDepth(t *testing.T) {
	tb := func(oid, parent uint32, name, kind, of string) Table {
		return Table{OID: oid, Parent: parent, Schema: "public", Name: name, Kind: kind, PartitionOf: of}
	}
	root := Table{Schema: "public", Name: "position"}.Qualified()
	s := &Subscriber{Tables: []Table{
		tb(1, 0, "position", "partitioned table", ""),
		tb(2, 1, "p_a", "table", root),
		tb(3, 1, "p_mid", "partitioned table", root),
		tb(4, 3, "p_mid_a", "table", root),
		tb(5, 0, "other", "partitioned table", ""),
		tb(6, 5, "other_a", "table", "public.other"),
	}}
	names := func(ts []*Table) (out []string) {
		for _, t := range ts {
			out = append(out, t.Name)
		}
		return out
	}
	cases := []struct {
		name string
		of   *Table
		want []string
	}{
		{"a root's leaves are its leaf partitions at every level", &s.Tables[0], []string{"p_a", "p_mid_a"}},
		{"a middle level's leaves are its own", &s.Tables[2], []string{"p_mid_a"}},
		{"a plain table is its own leaf", &s.Tables[1], []string{"p_a"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := names(s.leaves(c.of)); !equal(got, c.want) {
				t.Errorf("leaves = %v, want %v", got, c.want)
			}
		})
	}
	// A snapshot written before tables carried their parent: by the root's name.
	old := &Subscriber{Tables: []Table{tb(1, 0, "position", "partitioned table", ""), tb(2, 0, "p_a", "table", root)}}
	if got := names(old.leaves(&old.Tables[0])); !equal(got, []string{"p_a"}) {
		t.Errorf("leaves in an older snapshot = %v, want [p_a]", got)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
