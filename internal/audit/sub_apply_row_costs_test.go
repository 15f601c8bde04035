package audit

import (
	"strings"
	"testing"
)

// rowCostly is healthy with a subscriber table whose rows cost the apply
// worker a CHECK calling a function, a GIN index nothing scans, a scanned
// expression index, a generated column and a foreign key, under hostile
// names.
func rowCostly() Snapshots {
	s := healthy()
	t := &s.Subscriber.Tables[0]
	zero, some := int64(0), int64(7)
	gin := Index{OID: 16391, Name: "docs\"; DROP TABLE x; --", AM: "gin", Valid: true, Live: true, Scans: &zero,
		Keys: []IndexKey{{Attnum: 3, Column: "note"}}, Definition: `CREATE INDEX "docs""; DROP TABLE x; --" ON public.orders USING gin (note)`}
	expr := Index{OID: 16392, Name: "lower_note", AM: "btree", Valid: true, Live: true, Scans: &some,
		Keys: []IndexKey{{Expr: "lower(note)"}}, Definition: "CREATE INDEX lower_note ON public.orders USING btree (lower(note))"}
	t.Indexes = append(t.Indexes, gin, expr)
	t.RowCosts = &RowCosts{
		Constraints: []Constraint{
			{Name: "price\nok", Kind: ConstraintCheck, Definition: "CHECK (slow_check(customer))", Functions: []string{"slow_check(integer)"}},
			{Name: "positive", Kind: ConstraintCheck, Definition: "CHECK (customer > 0)"},
		},
		Generated:   []GeneratedColumn{{Column: "note_len", Expression: "length(note)"}},
		IndexCalls:  []IndexCall{},
		ForeignKeys: []ForeignKey{{Name: "orders_customer_fk", Referencing: true, Definition: "FOREIGN KEY (customer) REFERENCES customers(id)"}},
	}
	return s
}

// The check names each costly object with its definition, proposes a drop
// for exactly the CHECK that calls a function and the GIN index nothing
// scans, leaves out what a query scans and what it cannot drop, and says
// the foreign key's triggers do not fire in the apply worker.
func TestApplyRowCostsNamesEachCostlyObjectAndDropsOnlyWhatIsSafe(t *testing.T) {
	res := Run(rowCostly(), []Check{applyRowCosts})
	if len(res) != 1 || len(res[0].Findings) != 1 {
		t.Fatalf("results = %+v", res)
	}
	f := res[0].Findings[0]
	for _, want := range []string{`CHECK constraint U&"price\000Aok": CHECK (slow_check(customer)) (calls slow_check(integer))`,
		"GIN index", "expression index lower_note: CREATE INDEX lower_note", "generated column note_len: GENERATED ALWAYS AS (length(note)) STORED"} {
		if !strings.Contains(f.Found, want) {
			t.Errorf("found %q lacks %q", f.Found, want)
		}
	}
	if strings.Contains(f.Found, "positive") {
		t.Errorf("a CHECK of built-in operators was named: %q", f.Found)
	}
	if f.Severity != Warning {
		t.Errorf("severity %s, want warning", f.Severity)
	}
	if !strings.Contains(f.Why, "orders_customer_fk") || !strings.Contains(f.Why, "session_replication_role = replica") {
		t.Errorf("why %q does not say the foreign key does not fire", f.Why)
	}
	var texts []string
	for _, st := range f.Run {
		texts = append(texts, st.Text)
	}
	want := []string{`ALTER TABLE public.orders DROP CONSTRAINT U&"price\000Aok";`, `DROP INDEX CONCURRENTLY public."docs""; DROP TABLE x; --";`}
	if strings.Join(texts, "|") != strings.Join(want, "|") {
		t.Errorf("run = %q, want %q", texts, want)
	}
	for _, left := range []string{"lower_note", "note_len"} {
		if !strings.Contains(f.Fix, left) {
			t.Errorf("fix %q does not say %s is left out", f.Fix, left)
		}
	}
}

// Costs read and none found is "ok"; costs not read (an older snapshot) is
// not applicable, never "none".
func TestApplyRowCostsNotReadIsNotNone(t *testing.T) {
	s := healthy()
	if r := Run(s, []Check{applyRowCosts})[0]; r.Status != StatusNotApplicable || !strings.Contains(r.Reason, "not read") {
		t.Errorf("not read: %s (%s)", r.Status, r.Reason)
	}
	s.Subscriber.Tables[0].RowCosts = &RowCosts{}
	if r := Run(s, []Check{applyRowCosts})[0]; r.Status != StatusOK {
		t.Errorf("read, none: %s %+v", r.Status, r.Findings)
	}
	costs, read := ApplyRowCosts(rowCostly(), "sub1")
	if !read || len(costs) != 4 {
		t.Errorf("ApplyRowCosts = %d sources, read %v: %+v", len(costs), read, costs)
	}
	if _, read := ApplyRowCosts(healthy(), "sub1"); read {
		t.Error("ApplyRowCosts says read on a snapshot without RowCosts")
	}
}
