package audit

import (
	"slices"
	"testing"
)

// A forest of two levels: root 1 (hash) holds leaf 2 and partitioned 3
// (list), which holds leaves 4 and 5; 9 is a plain table.
func twoLevels() forest {
	return newForest([]partition{
		{OID: 1, Partitioned: true, Strategy: "hash"},
		{OID: 2, Parent: 1},
		{OID: 3, Parent: 1, Partitioned: true, Strategy: "list"},
		{OID: 4, Parent: 3},
		{OID: 5, Parent: 3},
		{OID: 9},
	})
}

func TestForest(t *testing.T) {
	f := twoLevels()
	cases := []struct {
		name string
		got  []uint32
		want []uint32
	}{
		{"a leaf's ancestors run from its parent to the root", f.ancestors(4), []uint32{3, 1}},
		{"a root has no ancestors", f.ancestors(1), nil},
		{"a plain table has no ancestors", f.ancestors(9), nil},
		{"a root's descendants are every partition at any depth", sorted(f.descendants(1)), []uint32{2, 3, 4, 5}},
		{"a middle level's descendants are its own partitions", sorted(f.descendants(3)), []uint32{4, 5}},
		{"a leaf has no descendants", f.descendants(4), nil},
		{"around a leaf are its ancestors, around a middle level its ancestors and partitions", sorted(f.around([]uint32{2, 3, 9})), []uint32{1, 2, 3, 4, 5, 9}},
		{"around lists each relation once", f.around([]uint32{4, 4, 5}), []uint32{4, 3, 1, 5}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !slices.Equal(c.got, c.want) {
				t.Errorf("got %v, want %v", c.got, c.want)
			}
		})
	}
	for oid, want := range map[uint32]uint32{4: 1, 3: 1, 1: 1, 9: 9} {
		if got := f.root(oid); got != want {
			t.Errorf("root(%d) = %d, want %d", oid, got, want)
		}
	}
	for oid, want := range map[uint32]int{1: 3, 3: 2, 4: 0} {
		if got := f.leaves(oid); got != want {
			t.Errorf("leaves(%d) = %d, want %d (partitioned tables are not leaves)", oid, got, want)
		}
	}
}

// A parent missing from the forest (a cycle cannot happen in pg_inherits,
// but a torn read can lose a row) ends the walk instead of looping.
func TestForestWalksEnd(t *testing.T) {
	f := newForest([]partition{{OID: 1, Parent: 2}, {OID: 2, Parent: 1}})
	if a := f.ancestors(1); len(a) > 3 {
		t.Errorf("ancestors of a cycle: %v", a)
	}
	if d := f.descendants(1); len(d) > 3 {
		t.Errorf("descendants of a cycle: %v", d)
	}
}

func TestPlaceFillsPartitioningFromTheForest(t *testing.T) {
	tables := []Table{
		{OID: 1, Schema: "public", Name: "position", Kind: "partitioned table"},
		{OID: 3, Schema: "public", Name: "mid", Kind: "partitioned table"},
		{OID: 4, Schema: "public", Name: "leaf", Kind: "table"},
		{OID: 9, Schema: "public", Name: "plain", Kind: "table"},
	}
	twoLevels().place(tables)
	want := []struct {
		parent      uint32
		partitionOf string
		strategy    string
		partitions  int
	}{
		{0, "", "hash", 3},
		{1, tables[0].Qualified(), "hash", 2},
		{3, tables[0].Qualified(), "hash", 0},
		{0, "", "", 0},
	}
	for i, w := range want {
		got := tables[i]
		if got.Parent != w.parent || got.PartitionOf != w.partitionOf || got.Strategy != w.strategy || got.Partitions != w.partitions {
			t.Errorf("%s: parent %d, partition of %q, strategy %q, %d partitions; want %+v",
				got.Name, got.Parent, got.PartitionOf, got.Strategy, got.Partitions, w)
		}
	}
}

func sorted(s []uint32) []uint32 {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
