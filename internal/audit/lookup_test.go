package audit

import (
	"os"
	"strings"
	"testing"
)

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// The table of section 4 of the replication facts reference: which subscriber
// index the apply worker uses for a REPLICA IDENTITY FULL table, per version
// (measured with idx_scan / seq_scan deltas on 16, 17 and 18).
func TestUsableForFullIdentity(t *testing.T) {
	remote := map[string]bool{"a": true, "b": true}
	key := func(col string) IndexKey { return IndexKey{Attnum: 1, Column: col} }
	expr := func(e string) IndexKey { return IndexKey{Attnum: 0, Expr: e} }
	eq := IndexAttribute{Type: "integer", Equality: true}
	ix := func(am string, keys ...IndexKey) Index {
		x := Index{Name: "i", AM: am, Valid: true, Live: true, Immediate: true, GetTuple: true, Keys: keys}
		for range keys {
			x.Attributes = append(x.Attributes, eq)
		}
		return x
	}
	partial := ix("btree", key("a"))
	partial.Predicate = "a > 0"
	gist := ix("gist", key("a"))
	gist.Keys[0].CompareTranslate = true // btree_gist 1.8 registers support procedure 12
	gist.Attributes = []IndexAttribute{{Type: "gbtreekey4", Equality: false}}
	rangeGist := ix("gist", key("a"))
	rangeGist.Keys[0].CompareTranslate = true
	rangeGist.Attributes = []IndexAttribute{{Type: "int4range", Equality: true}}
	brin := ix("brin", key("a"))
	brin.GetTuple = false
	invalid := ix("btree", key("a"))
	invalid.Valid = false
	later := ix("btree", key("a"), expr("(b + 0)"))

	cases := []struct {
		name   string
		index  Index
		usable map[int]bool // per major version
		reason string       // part of the reason on 16 when unusable
	}{
		{"a btree on a published column is used from 16", ix("btree", key("a")),
			map[int]bool{13: false, 14: false, 15: false, 16: true, 17: true, 18: true}, ""},
		{"a hash index is used from 17", ix("hash", key("a")),
			map[int]bool{15: false, 16: false, 17: true, 18: true}, "PostgreSQL 16 uses only btree"},
		{"a partial btree is never used", partial,
			map[int]bool{16: false, 17: false, 18: false}, "partial index"},
		{"an expression btree is never used", ix("btree", expr("(a + 0)")),
			map[int]bool{16: false, 17: false, 18: false}, "leftmost key is an expression"},
		{"an expression leftmost with a column after it is never used", ix("btree", expr("(a + 0)"), key("b")),
			map[int]bool{16: false, 17: false, 18: false}, "leftmost key is an expression"},
		{"a plain leftmost column with an expression after it is used", later,
			map[int]bool{15: false, 16: true, 17: true, 18: true}, ""},
		{"a btree on a column the publisher does not send is never used", ix("btree", key("d")),
			map[int]bool{16: false, 17: false, 18: false}, "not in the published (remote) columns"},
		{"a btree_gist index is never used, on 18 for want of an equality on its key type", gist,
			map[int]bool{16: false, 17: false, 18: false}, "access method gist"},
		{"a GiST index on a range column with a compare translation passes 18's rules", rangeGist,
			map[int]bool{16: false, 17: false, 18: true}, "access method gist"},
		{"a BRIN index is never used", brin,
			map[int]bool{16: false, 17: false, 18: false}, "access method brin"},
		{"an invalid index is not counted on", invalid,
			map[int]bool{16: false, 17: false, 18: false}, "invalid index"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for major, want := range c.usable {
				got, why := UsableForFullIdentity(major, c.index, remote)
				if got != want {
					t.Errorf("PostgreSQL %d: usable = %v (%s), want %v", major, got, why, want)
				}
				if !got && why == "" {
					t.Errorf("PostgreSQL %d: unusable without a reason", major)
				}
				if major == 16 && !got && c.reason != "" && !strings.Contains(why, c.reason) {
					t.Errorf("PostgreSQL 16: reason %q does not say %q", why, c.reason)
				}
			}
		})
	}
}

func TestApplyLookup(t *testing.T) {
	remote := map[string]bool{"id": true, "customer": true, "note": true}
	base := orders()
	cases := []struct {
		name       string
		major      int
		remoteFull bool
		indexes    []Index
		identity   string
		wantIndex  string
		wantVia    string
		rejected   int
	}{
		{"the primary key wins on every version", 15, true, []Index{btree(1, "a", "id"), pkey(2, "pk", "id")}, "full", "pk", ViaPrimaryKey, 0},
		{"a replica identity index wins over the primary key", 16, false,
			[]Index{pkey(2, "pk", "id"), func() Index { x := btree(3, "ri", "customer"); x.Unique, x.ReplicaIdentity = true, true; return x }()},
			"index", "ri", ViaIdentityIndex, 0},
		{"an identity index that is gone leaves the primary key", 16, false,
			[]Index{pkey(2, "pk", "id")}, "index", "pk", ViaPrimaryKey, 0},
		{"a deferrable primary key is not used", 16, true,
			[]Index{func() Index { x := pkey(2, "pk", "id"); x.Immediate = false; return x }()}, "default", "pk", ViaFullIndex, 0},
		{"the first usable index in OID order is used", 16, true,
			[]Index{func() Index { x := btree(5, "partial", "id"); x.Predicate = "id > 0"; return x }(), btree(6, "first", "note"), btree(7, "second", "id")},
			"default", "first", ViaFullIndex, 1},
		{"without REPLICA IDENTITY FULL on the publisher other indexes are not looked at", 16, false,
			[]Index{btree(6, "first", "note")}, "default", "", ViaSeqScan, 0},
		{"before 16 a FULL table without a key is a sequential scan", 15, true,
			[]Index{btree(6, "first", "id")}, "default", "", ViaSeqScan, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tb := base
			tb.Indexes, tb.ReplicaIdentity = c.indexes, c.identity
			got := ApplyLookup(c.major, tb, c.remoteFull, remote)
			if got.Index != c.wantIndex || got.Via != c.wantVia || len(got.Rejected) != c.rejected {
				t.Errorf("ApplyLookup = %+v, want index %q via %q with %d rejected", got, c.wantIndex, c.wantVia, c.rejected)
			}
		})
	}
}
