package audit

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/quote"
)

// Names other database users chose, as the review found them.
const (
	hostileSub    = "x'; DROP TABLE users; --"
	hostileTable  = "Orders"
	hostileColumn = "position"
	hostileSchema = "$(touch /tmp/p)`id`"
	hostileIndex  = "ix\x1b]52;c;aGk=\x07\u202Eevil"
	hostileTrig   = "trg\x1b[2J"
	hostilePub    = "pub; DROP"
	hostileSlot   = "slot'x"
)

var hostileNames = []string{hostileSub, hostileTable, hostileColumn, hostileSchema, hostileIndex, hostileTrig, hostilePub, hostileSlot}

// hostileSnapshots is healthy() with every name replaced by a hostile one,
// on PostgreSQL 18 (every check applies), consistent on both sides.
func hostileSnapshots() Snapshots {
	s := withVersion(healthy(), 18, 18)
	for _, t := range []*Table{&s.Publisher.Tables[0], &s.Subscriber.Tables[0]} {
		t.Schema, t.Name = hostileSchema, hostileTable
		t.Columns[2].Name = hostileColumn
	}
	pt := &s.Publisher.Tables[0]
	pt.Published = []PubEntry{{Publication: hostilePub, Columns: []string{"id", "customer", hostileColumn}}}
	s.Publisher.Publications[0].Name = hostilePub
	s.Publisher.Slots[0].Name = hostileSlot
	sub := &s.Subscriber.Subscriptions[0]
	sub.Name, sub.Slot, sub.Publications = hostileSub, hostileSlot, []string{hostilePub}
	sub.Relations[0].Table = s.Subscriber.Tables[0].Qualified()
	return s
}

// hostileStates put the hostile pair in states whose findings print fixes.
var hostileStates = []struct {
	name string
	make func(Snapshots) Snapshots
}{
	{"a disabled subscription with apply errors and an inactive slot", func(s Snapshots) Snapshots {
		sub := &s.Subscriber.Subscriptions[0]
		sub.Enabled, sub.Workers = false, nil
		sub.Stats = &SubscriptionStats{ApplyErrors: 3}
		sub.Relations[0].State = "d"
		s.Publisher.Slots[0].Active = false
		return s
	}},
	{"a row filter on a column outside the key, with a column list", func(s Snapshots) Snapshots {
		e := &s.Publisher.Tables[0].Published[0]
		e.RowFilter, e.ColumnList = `("position" <> 'x'::text)`, true
		return s
	}},
	{"FULL identity on the publisher, no key on the subscriber", func(s Snapshots) Snapshots {
		s.Publisher.Tables[0].ReplicaIdentity = "full"
		s.Subscriber.Tables[0].Indexes = nil
		return s
	}},
	{"a published column missing on the subscriber, another of another type", func(s Snapshots) Snapshots {
		s.Subscriber.Tables[0].Columns = s.Subscriber.Tables[0].Columns[:2]
		s.Subscriber.Tables[0].Columns[1].Type = "bigint"
		return s
	}},
	{"a published table missing on the subscriber", func(s Snapshots) Snapshots {
		s.Subscriber.Tables = nil
		return s
	}},
	{"extra indexes, a replica trigger, text transfer, no streaming", func(s Snapshots) Snapshots {
		t := &s.Subscriber.Tables[0]
		zero := int64(0)
		ix := btree(16501, hostileIndex, hostileColumn)
		ix.Scans = &zero
		t.Indexes = append(t.Indexes, ix, btree(16502, "o_b", "customer"), btree(16503, "o_c", "customer", hostileColumn))
		t.Triggers = []Trigger{{Name: hostileTrig, Enabled: "always", Function: "f()", Row: true, Events: []string{"INSERT"}}}
		sub := &s.Subscriber.Subscriptions[0]
		sub.Binary, sub.Streaming = false, "off"
		return s
	}},
	{"a lost slot, spill, and a slot that is not a failover slot beside a standby", func(s Snapshots) Snapshots {
		sl := &s.Publisher.Slots[0]
		sl.WALStatus, sl.Active = "lost", false
		sl.Stats = &SlotStats{SpillTxns: 3, SpillCount: 12, SpillBytes: 400_000, TotalTxns: 100, TotalBytes: 1_000_000}
		s.Subscriber.Subscriptions[0].Streaming = "off"
		return withStandbySlot(s, false)
	}},
	{"no key on the publisher, with a unique index", func(s Snapshots) Snapshots {
		t := &s.Publisher.Tables[0]
		u := btree(16600, hostileIndex, "id")
		u.Unique = true
		t.Indexes = []Index{u}
		return s
	}},
}

// withoutQuotedNames is s with every quoted form of the hostile names (and
// of names lagscope derives from them) taken out: an identifier, a literal,
// a shell word, a pg_dump pattern's word. What is left names them only raw.
func withoutQuotedNames(s string) string {
	names := append(slices.Clone(hostileNames), indexName(hostileTable, "_pkey"))
	forms := []string{quote.Word(quote.DumpPattern(hostileSchema, hostileTable))}
	for _, n := range names {
		if q, ok := quote.Ident(n); ok && q != n {
			forms = append(forms, q)
		}
		if q, ok := quote.Literal(n); ok {
			forms = append(forms, q)
		}
		if q := quote.Word(n); q != n {
			forms = append(forms, q)
		}
	}
	// Longest first: a form may hold another.
	slices.SortFunc(forms, func(a, b string) int { return len(b) - len(a) })
	for _, f := range forms {
		s = strings.ReplaceAll(s, f, " Q ")
	}
	return s
}

func TestFixesNameHostileObjectsOnlyQuoted(t *testing.T) {
	for _, c := range hostileStates {
		t.Run(c.name, func(t *testing.T) {
			s := c.make(hostileSnapshots())
			n := 0
			for _, r := range Run(s, All) {
				for _, f := range r.Findings {
					for _, h := range hostileNames {
						if strings.Contains(withoutQuotedNames(f.Fix), h) || !quote.Printable(f.Fix) {
							t.Errorf("%s: fix prose names %q unquoted: %q", f.Check, h, f.Fix)
						}
					}
					for _, o := range f.Objects {
						if !quote.Printable(o) {
							t.Errorf("%s: object %q is not printable", f.Check, o)
						}
					}
					for _, st := range f.Run {
						n++
						if st.Withheld != "" || st.Text == "" {
							t.Errorf("%s: statement withheld: %+v", f.Check, st)
							continue
						}
						if !quote.Printable(st.Text) {
							t.Errorf("%s: statement %q is not printable", f.Check, st.Text)
						}
						rest := withoutQuotedNames(st.Text)
						for _, h := range hostileNames {
							if strings.Contains(rest, h) {
								t.Errorf("%s: statement %q names %q outside its quoted form", f.Check, st.Text, h)
							}
						}
					}
				}
			}
			if n == 0 {
				t.Fatal("no statement printed: the state makes no fix")
			}
		})
	}
}

// TestStatementsAreBuiltOnlyByTheQuotingLayer reads the checks' source: a
// statement comes from quote.SQL or quote.Command, never from a literal
// Statement or a Text written afterwards.
func TestStatementsAreBuiltOnlyByTheQuotingLayer(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	bad := regexp.MustCompile(`[^\]]quote\.Statement\{|\.Text\s*=[^=]|Kind:\s*quote\.`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if bad.MatchString(line) {
				t.Errorf("%s:%d builds a statement by hand: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}

func TestApplyErrorsResetByOID(t *testing.T) {
	s := hostileSnapshots()
	s.Subscriber.Subscriptions[0].Stats = &SubscriptionStats{ApplyErrors: 2, StatsReset: ptr(taken.Add(-time.Hour))}
	f := applyErrors.Run(s)
	if len(f) != 1 || len(f[0].Run) != 1 || f[0].Run[0].Text != "SELECT pg_stat_reset_subscription_stats(16400);" {
		t.Fatalf("%+v: want the counters reset by the subscription's OID", f)
	}
}

func ptr[T any](v T) *T { return &v }

func TestTheRowFilterFixTouchesOnlyItsTable(t *testing.T) {
	s := healthy()
	s.Publisher.Tables[0].Published[0].RowFilter = "(customer > 1)"
	s.Publisher.Tables[0].Published[0].ColumnList = true
	other := orders()
	other.Name, other.Published = "invoices", []PubEntry{{Publication: "pub1", Columns: []string{"id"}, ColumnList: true}}
	s.Publisher.Tables = append(s.Publisher.Tables, other)
	f := rowFilter.Run(s)
	if len(f) != 1 {
		t.Fatalf("findings %+v, want one", f)
	}
	var texts []string
	for _, st := range f[0].Run {
		texts = append(texts, st.Text)
	}
	want := []string{"BEGIN;", "ALTER PUBLICATION pub1 DROP TABLE public.orders;",
		"ALTER PUBLICATION pub1 ADD TABLE public.orders (id, customer, note) WHERE ((customer > 1));", "COMMIT;"}
	if !slices.Equal(texts, want) {
		t.Errorf("statements %q, want %q", texts, want)
	}
	if strings.Contains(strings.Join(texts, " "), "SET TABLE") || strings.Contains(strings.Join(texts, " "), "invoices") {
		t.Errorf("statements %q replace or touch the publication's other tables", texts)
	}
	if !strings.Contains(f[0].Run[2].Note, "neither copied nor removed again") {
		t.Errorf("note %q: want the resync caveat", f[0].Run[2].Note)
	}
}

func TestSynchronizedStandbySlotsNamesOnlyConnectedStandbys(t *testing.T) {
	idle := Slot{Name: "sb_idle", Type: "physical", XminAge: -1, CatalogXminAge: -1}
	cases := []struct {
		name    string
		make    func() Snapshots
		objects []string // of the failover-safety findings
		value   string   // the value every fix sets; "" = no finding with a fix
	}{
		{"an idle standby slot outside the setting is not proposed", func() Snapshots {
			s := withStandbySlot(withVersion(healthy(), 18, 18), true)
			s.Publisher.Slots = append(s.Publisher.Slots, idle)
			return s
		}, nil, ""},
		{"a connected standby slot outside the setting is proposed without the idle one", func() Snapshots {
			s := withStandbySlot(withVersion(healthy(), 18, 18), true)
			s.Publisher.Slots = append(s.Publisher.Slots, idle)
			delete(s.Publisher.Settings, "synchronized_standby_slots")
			return s
		}, []string{"slot sb1"}, "'sb1'"},
		{"an idle standby slot in the setting is taken out of it", func() Snapshots {
			s := withStandbySlot(withVersion(healthy(), 18, 18), true)
			s.Publisher.Slots = append(s.Publisher.Slots, idle)
			s.Publisher.Settings["synchronized_standby_slots"] = Setting{Value: "sb1,sb_idle"}
			return s
		}, []string{"slot sb_idle"}, "'sb1'"},
		{"with no standby connected the setting is reset", func() Snapshots {
			s := withStandbySlot(withVersion(healthy(), 18, 18), true)
			s.Publisher.Slots[1].Active = false
			return s
		}, []string{"slot sb1"}, "RESET"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var objects []string
			for _, f := range failoverSafety.Run(c.make()) {
				objects = append(objects, f.Objects...)
				if len(f.Run) == 0 {
					continue
				}
				if !strings.Contains(f.Run[0].Text, c.value) || c.value == "" || strings.Contains(f.Run[0].Text, "sb_idle") {
					t.Errorf("%v: fix %q, want it to set %s and never name the idle slot", f.Objects, f.Run[0].Text, c.value)
				}
			}
			for _, o := range c.objects {
				if !slices.Contains(objects, o) {
					t.Errorf("findings name %v, want %s", objects, o)
				}
			}
			if c.objects == nil && len(objects) > 0 {
				t.Errorf("findings name %v, want none", objects)
			}
		})
	}
}

func TestExtraIndexesDropOnlyUnusedPlainIndexesOneByOne(t *testing.T) {
	s := healthy()
	zero, some := int64(0), int64(42)
	withScans := func(ix Index, n *int64) Index { ix.Scans = n; return ix }
	uniq := withScans(btree(16501, "o_uniq", "customer"), &zero)
	uniq.Unique = true
	excl := withScans(btree(16502, "o_excl", "note"), &zero)
	excl.Constraint = true
	t0 := &s.Subscriber.Tables[0]
	t0.Indexes = append(t0.Indexes, uniq, excl, withScans(btree(16503, "o_read", "note"), &some),
		withScans(btree(16504, "o_dead1", "customer", "note"), &zero), withScans(btree(16505, "o_Dead2", "note", "customer"), &zero))
	f := extraSubscriberIndexes.Run(s)
	if len(f) != 1 {
		t.Fatalf("findings %+v, want one", f)
	}
	var texts []string
	for _, st := range f[0].Run {
		texts = append(texts, st.Text)
	}
	want := []string{"DROP INDEX CONCURRENTLY public.o_dead1;", `DROP INDEX CONCURRENTLY public."o_Dead2";`}
	if !slices.Equal(texts, want) {
		t.Errorf("statements %q, want %q", texts, want)
	}
	for _, w := range []string{"o_read (note; 42 scans)", "o_dead1 (customer, note; 0 scans)"} {
		if !strings.Contains(f[0].Found, w) {
			t.Errorf("found %q lacks %q", f[0].Found, w)
		}
	}
	for _, w := range []string{"o_uniq, o_excl", "o_read (42 scans)"} {
		if !strings.Contains(f[0].Fix, w) {
			t.Errorf("fix %q does not say it leaves out %q", f[0].Fix, w)
		}
	}
}

func TestAKeyIsAddedConcurrentlyFirstAndTheLockSaid(t *testing.T) {
	s := healthy()
	s.Subscriber.Tables[0].Indexes = nil // the subscriber has no key: the publisher's (id) is needed
	var run []quote.Statement
	for _, r := range Run(s, All) {
		for _, f := range r.Findings {
			if f.Check == "replica-identity-mismatch" {
				run = f.Run
			}
		}
	}
	if len(run) != 2 || !strings.HasPrefix(run[0].Text, "CREATE UNIQUE INDEX CONCURRENTLY orders_pkey ON public.orders (id);") ||
		run[1].Text != "ALTER TABLE public.orders ADD PRIMARY KEY USING INDEX orders_pkey;" || !strings.Contains(run[1].Note, "ACCESS EXCLUSIVE") {
		t.Errorf("statements %+v: want the concurrent index first, then the key, its lock said", run)
	}
}
