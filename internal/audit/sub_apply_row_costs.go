package audit

import (
	"fmt"
	"strings"

	"github.com/lagscope/lagscope/internal/quote"
)

// CheckApplyRowCosts is the ID of applyRowCosts: its page is docs/checks/apply-row-costs.md.
const CheckApplyRowCosts CheckID = "apply-row-costs"

// CostKind is a kind of per-row work the apply worker does beyond writing
// the row and its btree indexes' entries.
type CostKind string

// The kinds of per-row cost sources (RowCost.Kind).
const (
	CostTrigger    CostKind = "trigger"              // an ALWAYS or REPLICA row trigger
	CostCheck      CostKind = "CHECK constraint"     // one that calls a function not built in
	CostDomain     CostKind = "domain constraint"    // a column's domain CHECK that calls one
	CostExclusion  CostKind = "exclusion constraint" // probes its index for every row
	CostGenerated  CostKind = "generated column"     // computed for every row written
	CostExprIndex  CostKind = "expression index"     // evaluates its expressions for every row
	CostIndexKind  CostKind = "index"                // GIN, GiST, SP-GiST: CPU beyond their WAL
	CostIndexCalls CostKind = "partial index"        // a predicate that calls a function not built in
)

// RowCost is one source of per-row work of the apply worker on a table of
// a subscription: what it is, its definition and the functions it calls
// that are not built in.
type RowCost struct {
	// Table is the local table, qualified for prose.
	Table string
	Kind  CostKind
	// Object is the trigger's, constraint's, column's or index's name (raw:
	// quote it to print it); AM the index's access method.
	Object string
	AM     string
	// Definition is the object's definition as the server prints it.
	Definition string
	// Functions are the functions not built in it calls (nil: none, or not
	// known: a trigger's function is its definition).
	Functions []string
	// Drop is the statement that removes it, when one is safe to propose
	// (nil: none; see applyRowCosts).
	Drop *quote.Statement
}

// Name is the source for prose: its kind and quoted name ("CHECK
// constraint "price_ok"", "GIN index "docs_tsv"").
func (c RowCost) Name() string {
	kind := string(c.Kind)
	if c.Kind == CostIndexKind {
		kind = strings.ToUpper(c.AM) + " index"
	}
	return kind + " " + id(c.Object)
}

// ApplyRowCosts lists the per-row cost sources of the tables subscription
// sub applies (each leaf of a partitioned one) and whether every table's
// costs were read (RowCosts): when not, constraints and generated columns
// are not known, and the list holds only what the indexes and triggers
// show. Nil, false without the subscriber's snapshot.
func ApplyRowCosts(s Snapshots, sub string) ([]RowCost, bool) {
	if s.Subscriber == nil {
		return nil, false
	}
	var out []RowCost
	read := true
	for _, t := range appliedTables(s, sub) {
		if t.Kind != "partitioned table" && t.RowCosts == nil {
			read = false
		}
		out = append(out, rowCosts(*t)...)
	}
	return out, read
}

// rowCosts are t's per-row cost sources, triggers first.
func rowCosts(t Table) []RowCost {
	var out []RowCost
	for _, tg := range t.Triggers {
		if tg.Row && (tg.Enabled == "always" || tg.Enabled == "replica") {
			out = append(out, RowCost{Table: t.Qualified(), Kind: CostTrigger, Object: tg.Name, Definition: tg.Function})
		}
	}
	calls := map[string][]string{}
	var gen []GeneratedColumn
	if rc := t.RowCosts; rc != nil {
		for _, c := range rc.IndexCalls {
			calls[c.Index] = c.Functions
		}
		gen = rc.Generated
		for _, c := range rc.Constraints {
			x := RowCost{Table: t.Qualified(), Object: c.Name, Definition: c.Definition, Functions: c.Functions}
			switch {
			case c.Kind == ConstraintExclusion:
				x.Kind = CostExclusion
			case len(c.Functions) == 0:
				continue // built-in operators and functions: cheap
			case c.Kind == ConstraintDomain:
				x.Kind = CostDomain
				x.Definition = fmt.Sprintf("%s (domain %s of column %s)", c.Definition, c.Domain, id(c.Column))
			default:
				x.Kind = CostCheck
				st := quote.SQL("ALTER TABLE %I DROP CONSTRAINT %I;", t.qname(), c.Name).OnServer(onSubscriber).
					WithNote("the subscriber then checks it for no writer, local ones included: keep it if they need it; takes an ACCESS EXCLUSIVE lock on the table for a moment")
				x.Drop = &st
			}
			out = append(out, x)
		}
	}
	for _, g := range gen {
		out = append(out, RowCost{Table: t.Qualified(), Kind: CostGenerated, Object: g.Column, Definition: "GENERATED ALWAYS AS (" + g.Expression + ") STORED", Functions: g.Functions})
	}
	for _, ix := range t.Indexes {
		if !ix.Live {
			continue
		}
		x := RowCost{Table: t.Qualified(), Object: ix.Name, AM: ix.AM, Definition: ix.Definition, Functions: calls[ix.Name]}
		switch {
		case ix.expression():
			x.Kind = CostExprIndex
		case ix.AM == "gin" || ix.AM == "gist" || ix.AM == "spgist":
			x.Kind = CostIndexKind
		case ix.Predicate != "" && len(x.Functions) > 0:
			x.Kind = CostIndexCalls
		default:
			continue
		}
		if !ix.Primary && !ix.Unique && !ix.Constraint && ix.Scans != nil && *ix.Scans == 0 {
			st := quote.SQL("DROP INDEX CONCURRENTLY %I;", quote.Name{Schema: t.Schema, Name: ix.Name}).OnServer(onSubscriber).
				WithNote("0 scans since statistics were reset; not inside a transaction block")
			x.Drop = &st
		}
		out = append(out, x)
	}
	return out
}

// expression says an index key is an expression.
func (ix Index) expression() bool {
	for _, k := range ix.Keys {
		if k.Attnum == 0 {
			return true
		}
	}
	return false
}

// applyRowCosts: what each replicated row costs the apply worker beyond
// plain btree writes, per table, each object with its definition. The fix
// drops only a CHECK constraint that calls a function, or an expression or
// GIN/GiST index nothing scans or needs; triggers are replica-triggers'.
var applyRowCosts = Check{
	ID:       CheckApplyRowCosts,
	Title:    "the apply worker does little per row beyond writing it",
	Severity: Warning,
	Side:     SubscriberSide,
	Needs:    []Section{SubSubscriptions, SubRels, SubTables, SubRowCosts},
	Applies: func(s Snapshots) string {
		for _, t := range s.Subscriber.Tables {
			if t.RowCosts != nil {
				return ""
			}
		}
		if len(s.Subscriber.Tables) == 0 {
			return ""
		}
		return "the subscribed tables' constraints, generated columns and index expressions were not read (a snapshot from an older lagscope)"
	},
	Run: func(s Snapshots) []Finding {
		var out []Finding
		for _, t := range appliedTables(s, "") {
			if f, ok := rowCostFinding(*t); ok {
				out = append(out, f)
			}
		}
		return out
	},
}

// rowCostFinding names t's per-row cost sources (triggers left to
// replica-triggers) with their definitions and the statements that drop the
// ones safe to drop.
func rowCostFinding(t Table) (Finding, bool) {
	var named, objects, left []string
	var run []quote.Statement
	sev := Info
	for _, c := range rowCosts(t) {
		if c.Kind == CostTrigger {
			continue
		}
		s := c.Name() + ": " + quote.Escape(c.Definition)
		if len(c.Functions) > 0 {
			s += " (calls " + strings.Join(quoteAll(c.Functions), ", ") + ")"
		}
		named = append(named, s)
		objects = append(objects, strings.ToLower(string(c.Kind))+" "+id(c.Object))
		if len(c.Functions) > 0 || c.Kind == CostIndexKind {
			sev = Warning
		}
		switch {
		case c.Drop != nil:
			run = append(run, *c.Drop)
		case c.Kind == CostGenerated:
			left = append(left, "generated column "+id(c.Object)+" (dropping its expression leaves it empty for replicated rows: compute it where it is read instead, a view, or make the expression cheaper)")
		case c.Kind == CostDomain:
			left = append(left, c.Name()+" (it holds for every column of its domain)")
		case c.Kind == CostExclusion:
			left = append(left, c.Name()+" (it enforces something)")
		default:
			left = append(left, c.Name()+" (it enforces something, a query scans it, or its scans were not read)")
		}
	}
	if len(named) == 0 {
		return Finding{}, false
	}
	why := "The apply worker does this for every replicated row it writes, in one process: a function called, an expression " +
		"evaluated, a GIN entry tokenized cost CPU that the row's WAL does not show, so lagscope cannot predict from the WAL " +
		"alone what removing it buys."
	if fks := t.fkNames(); len(fks) > 0 {
		why += " Not among them: the foreign keys " + strings.Join(fks, ", ") + ", whose triggers do not fire in the apply worker " +
			"(it runs with session_replication_role = replica)."
	}
	fix := "Make each cheaper, or drop what the subscriber does not need"
	if len(run) > 0 {
		fix += "; lagscope proposes a drop for what is safe to drop, one statement each"
	}
	if len(left) > 0 {
		fix += ". Left out: " + strings.Join(left, "; ")
	}
	return Finding{
		Severity: sev,
		Objects:  append([]string{"table " + t.Qualified()}, objects...),
		Found:    fmt.Sprintf("Table %s costs the apply worker more per row than its writes: %s.", t.Qualified(), strings.Join(named, "; ")),
		Why:      why,
		Fix:      fix + ".",
		Run:      run,
	}, true
}

// fkNames are the foreign keys with triggers on t, quoted.
func (t Table) fkNames() []string {
	if t.RowCosts == nil {
		return nil
	}
	var out []string
	for _, fk := range t.RowCosts.ForeignKeys {
		out = append(out, id(fk.Name))
	}
	return out
}

// quoteAll quotes server text for prose.
func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = quote.Escape(x)
	}
	return out
}
