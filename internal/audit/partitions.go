package audit

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/pg"
)

// partition is one relation of a partition forest as pg_inherits and
// pg_class list it.
type partition struct {
	OID uint32
	// Parent is the partitioned table it is a partition of; 0 when it is
	// not a partition (a root, or a table outside any partitioning; plain
	// inheritance children are not partitions).
	Parent uint32
	// Partitioned: relkind 'p', a table that holds no rows of its own.
	Partitioned bool
	// Strategy is hash, range or list for a partitioned table, else "".
	Strategy string
}

// forest is the partition trees read by readForest: each relation's place,
// and the partitions of each partitioned table.
type forest struct {
	nodes    map[uint32]partition
	children map[uint32][]uint32
}

// newForest indexes parts.
func newForest(parts []partition) forest {
	f := forest{nodes: map[uint32]partition{}, children: map[uint32][]uint32{}}
	for _, p := range parts {
		f.nodes[p.OID] = p
		if p.Parent != 0 {
			f.children[p.Parent] = append(f.children[p.Parent], p.OID)
		}
	}
	return f
}

// forestSQL lists the partition trees the relations $1 belong to: their
// ancestors up to each root and every descendant of those, from
// pg_inherits and pg_class. Unlike pg_partition_tree and
// pg_partition_ancestors it takes no lock on the relations.
const forestSQL = pg.Marker + `WITH RECURSIVE up(oid) AS (
  SELECT unnest($1::oid[])
  UNION
  SELECT i.inhparent FROM up JOIN pg_class c ON c.oid = up.oid AND c.relispartition JOIN pg_inherits i ON i.inhrelid = up.oid
), down(oid) AS (
  SELECT oid FROM up
  UNION
  SELECT i.inhrelid FROM down JOIN pg_class p ON p.oid = down.oid AND p.relkind = 'p' JOIN pg_inherits i ON i.inhparent = down.oid
)
SELECT c.oid, coalesce(i.inhparent, 0), c.relkind = 'p',
  coalesce(CASE pt.partstrat WHEN 'h' THEN 'hash' WHEN 'r' THEN 'range' WHEN 'l' THEN 'list' END, '')
FROM down JOIN pg_class c ON c.oid = down.oid
LEFT JOIN pg_inherits i ON i.inhrelid = c.oid AND c.relispartition
LEFT JOIN pg_partitioned_table pt ON pt.partrelid = c.oid`

// readForest reads the partition trees of the relations oids (each of
// them is in the forest, a partition or not).
func (r *reader) readForest(ctx context.Context, oids []uint32) (forest, error) {
	if len(oids) == 0 {
		return newForest(nil), nil
	}
	rows, _ := r.q.Query(ctx, forestSQL, oids)
	parts, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (partition, error) {
		var p partition
		err := row.Scan(&p.OID, &p.Parent, &p.Partitioned, &p.Strategy)
		return p, err
	})
	if err != nil {
		return forest{}, fmt.Errorf("partitions (pg_inherits): %w", err)
	}
	return newForest(parts), nil
}

// ancestors lists oid's partition ancestors, its parent first and its
// root last (none when it is not a partition).
func (f forest) ancestors(oid uint32) []uint32 {
	var out []uint32
	for p := f.nodes[oid].Parent; p != 0 && len(out) <= len(f.nodes); p = f.nodes[p].Parent {
		out = append(out, p)
	}
	return out
}

// root is the root of oid's partition tree: oid itself when it is not a
// partition.
func (f forest) root(oid uint32) uint32 {
	if a := f.ancestors(oid); len(a) > 0 {
		return a[len(a)-1]
	}
	return oid
}

// descendants lists every partition below oid, at any depth, level by
// level.
func (f forest) descendants(oid uint32) []uint32 {
	out := append([]uint32{}, f.children[oid]...)
	for i := 0; i < len(out) && len(out) <= len(f.nodes); i++ {
		out = append(out, f.children[out[i]]...)
	}
	return out
}

// leaves counts the leaf partitions below oid (what pg_partition_tree
// calls isleaf: every partition that is not itself partitioned).
func (f forest) leaves(oid uint32) int {
	n := 0
	for _, d := range f.descendants(oid) {
		if !f.nodes[d].Partitioned {
			n++
		}
	}
	return n
}

// place fills the partitioning fields of tables (which hold the roots of
// their partitions) from f: the parent, the root's name, the strategy of
// the table or its root, the leaf count of a partitioned table.
func (f forest) place(tables []Table) {
	byOID := tablesByOID(tables)
	for i := range tables {
		t := &tables[i]
		p, ok := f.nodes[t.OID]
		if !ok {
			continue
		}
		t.Parent = p.Parent
		root := f.root(t.OID)
		if root != t.OID {
			if rt := byOID[root]; rt != nil {
				t.PartitionOf = rt.Qualified()
			}
		}
		t.Strategy = f.nodes[root].Strategy
		if p.Partitioned {
			t.Partitions = f.leaves(t.OID)
		}
	}
}

// around lists oids with their partition ancestors and descendants, each
// once, in the order met.
func (f forest) around(oids []uint32) []uint32 {
	var out []uint32
	seen := map[uint32]bool{}
	add := func(list ...uint32) {
		for _, o := range list {
			if !seen[o] {
				seen[o] = true
				out = append(out, o)
			}
		}
	}
	for _, o := range oids {
		add(o)
		add(f.ancestors(o)...)
		add(f.descendants(o)...)
	}
	return out
}
