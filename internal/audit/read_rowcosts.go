package audit

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/pg"
)

// RowCosts is what each replicated row costs the apply worker on a table
// beyond writing the row and its btree indexes' entries: the constraints it
// checks, the generated columns it computes, the index expressions and
// predicates it evaluates (the indexes themselves, with their access method,
// are Table.Indexes), and the foreign keys it does not check. Every list is
// complete when RowCosts was read: an empty one is "none".
type RowCosts struct {
	// Constraints are the table's CHECK and exclusion constraints and the
	// CHECK constraints of its columns' domains, by name.
	Constraints []Constraint `json:"constraints"`
	// Generated are the stored generated columns, which the subscriber
	// computes for every row it writes.
	Generated []GeneratedColumn `json:"generated"`
	// IndexCalls are the indexes whose expressions or predicates call a
	// function that is not built in (its OID is a user object's).
	IndexCalls []IndexCall `json:"index_calls"`
	// ForeignKeys are the foreign keys whose triggers are on the table
	// (those it has and those that reference it): their RI_ConstraintTrigger
	// triggers do not fire in the apply worker, which runs with
	// session_replication_role = replica.
	ForeignKeys []ForeignKey `json:"foreign_keys"`
}

// Constraint kinds (Constraint.Kind).
const (
	ConstraintCheck     = "check"
	ConstraintExclusion = "exclusion"
	ConstraintDomain    = "domain check"
)

// Constraint is a constraint the apply worker checks for every row it
// writes.
type Constraint struct {
	Name string `json:"name"`
	// Kind is check, exclusion or domain check.
	Kind string `json:"kind"`
	// Column and Domain are a domain check's column and the column's type
	// (the domain; "" for the table's own constraints).
	Column string `json:"column,omitempty"`
	Domain string `json:"domain,omitempty"`
	// Definition is pg_get_constraintdef: "CHECK (...)", "EXCLUDE USING ...".
	Definition string `json:"definition"`
	// Functions are the functions it calls that are not built in
	// (pg_depend on pg_proc, OID at least 16384), as regprocedure prints
	// them; nil when it calls built-in functions only.
	Functions []string `json:"functions,omitempty"`
}

// GeneratedColumn is a stored generated column.
type GeneratedColumn struct {
	Column     string   `json:"column"`
	Expression string   `json:"expression"` // pg_get_expr of its default
	Functions  []string `json:"functions,omitempty"`
}

// IndexCall is an index whose expressions or predicate call functions that
// are not built in.
type IndexCall struct {
	Index     string   `json:"index"`
	Functions []string `json:"functions"`
}

// ForeignKey is a foreign key with triggers on the table.
type ForeignKey struct {
	Name string `json:"name"`
	// Referencing says the table is the one that has the key (its triggers
	// check inserts and updates); false: it is the table referenced (its
	// triggers act on deletes and updates of the referenced rows).
	Referencing bool   `json:"referencing"`
	Definition  string `json:"definition"`
}

// userFunctions lists, for the pg_depend rows of the object $class/$oid
// (spelled by the caller), the functions of OID 16384 or more it depends on.
func userFunctions(class, oid string) string {
	return `array(SELECT DISTINCT dep.refobjid::regprocedure::text FROM pg_depend dep WHERE dep.classid = '` + class + `'::regclass AND dep.objid = ` + oid +
		` AND dep.refclassid = 'pg_proc'::regclass AND dep.refobjid >= 16384 ORDER BY 1)`
}

// The queries of readRowCosts, each over the tables $1.
var (
	constraintsSQL = pg.Marker + `SELECT c.conrelid, c.conname, c.contype::text, '', '', pg_get_constraintdef(c.oid, true), ` + userFunctions("pg_constraint", "c.oid") + `
FROM pg_constraint c WHERE c.conrelid = ANY($1) AND c.contype IN ('c', 'x')
UNION ALL
SELECT a.attrelid, c.conname, 'd', a.attname, format_type(a.atttypid, NULL), pg_get_constraintdef(c.oid, true), ` + userFunctions("pg_constraint", "c.oid") + `
FROM pg_attribute a JOIN pg_constraint c ON c.contypid = a.atttypid
WHERE a.attrelid = ANY($1) AND a.attnum > 0 AND NOT a.attisdropped AND c.contype = 'c'
ORDER BY 1, 2, 4`
	generatedSQL = pg.Marker + `SELECT a.attrelid, a.attname, coalesce(pg_get_expr(d.adbin, d.adrelid, true), ''), ` + userFunctions("pg_attrdef", "d.oid") + `
FROM pg_attribute a JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE a.attrelid = ANY($1) AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = 's' ORDER BY 1, a.attnum`
	indexCallsSQL = pg.Marker + `SELECT i.indrelid, ic.relname, ` + userFunctions("pg_class", "i.indexrelid") + `
FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
WHERE i.indrelid = ANY($1) AND (i.indexprs IS NOT NULL OR i.indpred IS NOT NULL) ORDER BY 1, i.indexrelid`
	foreignKeysSQL = pg.Marker + `SELECT DISTINCT t.tgrelid, c.conname, c.conrelid = t.tgrelid, pg_get_constraintdef(c.oid, true)
FROM pg_trigger t JOIN pg_constraint c ON c.oid = t.tgconstraint
WHERE t.tgrelid = ANY($1) AND t.tgisinternal AND c.contype = 'f' ORDER BY 1, 2`
)

// readRowCosts sets RowCosts on every table: what each row written costs
// beyond the row and its indexes' entries.
func (r *reader) readRowCosts(ctx context.Context, tables []Table) error {
	if len(tables) == 0 {
		return nil
	}
	byOID := tablesByOID(tables)
	oids := make([]uint32, 0, len(tables))
	costs := make(map[uint32]*RowCosts, len(tables))
	for _, t := range tables {
		oids = append(oids, t.OID)
		costs[t.OID] = &RowCosts{Constraints: []Constraint{}, Generated: []GeneratedColumn{}, IndexCalls: []IndexCall{}, ForeignKeys: []ForeignKey{}}
	}
	var rel uint32
	var c Constraint
	var kind string
	rows, _ := r.q.Query(ctx, constraintsSQL, oids)
	if _, err := pgx.ForEachRow(rows, []any{&rel, &c.Name, &kind, &c.Column, &c.Domain, &c.Definition, &c.Functions}, func() error {
		if rc := costs[rel]; rc != nil {
			x := c
			x.Kind = map[string]string{"c": ConstraintCheck, "x": ConstraintExclusion, "d": ConstraintDomain}[kind]
			if len(x.Functions) == 0 {
				x.Functions = nil
			}
			rc.Constraints = append(rc.Constraints, x)
		}
		return nil
	}); err != nil {
		return fmt.Errorf("constraints: %w", err)
	}
	var g GeneratedColumn
	rows, _ = r.q.Query(ctx, generatedSQL, oids)
	if _, err := pgx.ForEachRow(rows, []any{&rel, &g.Column, &g.Expression, &g.Functions}, func() error {
		if rc := costs[rel]; rc != nil {
			x := g
			if len(x.Functions) == 0 {
				x.Functions = nil
			}
			rc.Generated = append(rc.Generated, x)
		}
		return nil
	}); err != nil {
		return fmt.Errorf("generated columns: %w", err)
	}
	var ic IndexCall
	rows, _ = r.q.Query(ctx, indexCallsSQL, oids)
	if _, err := pgx.ForEachRow(rows, []any{&rel, &ic.Index, &ic.Functions}, func() error {
		if rc := costs[rel]; rc != nil && len(ic.Functions) > 0 {
			rc.IndexCalls = append(rc.IndexCalls, IndexCall{Index: ic.Index, Functions: ic.Functions})
		}
		return nil
	}); err != nil {
		return fmt.Errorf("index expressions: %w", err)
	}
	var fk ForeignKey
	rows, _ = r.q.Query(ctx, foreignKeysSQL, oids)
	if _, err := pgx.ForEachRow(rows, []any{&rel, &fk.Name, &fk.Referencing, &fk.Definition}, func() error {
		if rc := costs[rel]; rc != nil {
			rc.ForeignKeys = append(rc.ForeignKeys, fk)
		}
		return nil
	}); err != nil {
		return fmt.Errorf("foreign keys: %w", err)
	}
	for oid, rc := range costs {
		byOID[oid].RowCosts = rc
	}
	return nil
}
