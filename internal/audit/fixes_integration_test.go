package audit

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/quote"
)

// TestIntegrationFixesDoWhatTheySay runs printed fixes on a real publisher:
// the row-filter fix, on a publication of three tables, changes the one
// table's filter and leaves all three published with their column lists; and
// the lock each printed ALTER TABLE form says it takes is the one it takes.
func TestIntegrationFixesDoWhatTheySay(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 15, nil)

	t.Log("a publication of three tables: one with a column list, one plain, one with a filter on a column outside its key")
	e.pub("CREATE TABLE rf_a (id int PRIMARY KEY, v int, w int)", "CREATE TABLE rf_b (id int PRIMARY KEY, v int)",
		"CREATE TABLE rf_c (id int PRIMARY KEY, v int)",
		"CREATE PUBLICATION rf3 FOR TABLE rf_a (id, v), rf_b, rf_c WHERE (v > 0)")
	f := e.mustFind("row-filter", "table public.rf_c", 0)
	if f.Severity != Error || len(f.Run) == 0 {
		t.Fatalf("row-filter finding %+v: want an error with statements", f)
	}
	for _, other := range []string{"rf_a", "rf_b"} {
		if len(matching(e.findings(), "row-filter", "table public."+other)) > 0 {
			t.Fatalf("a row-filter finding for %s, which has no filter", other)
		}
	}

	run := func(sts []quote.Statement) {
		t.Helper()
		var texts []string
		for _, st := range sts {
			if st.Withheld != "" || st.Kind != quote.SQLKind || st.On != onPublisher {
				t.Fatalf("statement %+v: want SQL for the publisher", st)
			}
			texts = append(texts, st.Text)
		}
		e.pub(texts...) // one session: BEGIN ... COMMIT as printed
	}
	members := func() map[string]string {
		t.Helper()
		c, err := pgx.Connect(e.ctx, e.pubDSN)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(context.Background())
		rows, _ := c.Query(e.ctx, `SELECT tablename, array_to_string(attnames, ',') || ' ' || coalesce(rowfilter, '-')
FROM pg_publication_tables WHERE pubname = 'rf3'`)
		m := map[string]string{}
		var name, desc string
		if _, err := pgx.ForEachRow(rows, []any{&name, &desc}, func() error { m[name] = desc; return nil }); err != nil {
			t.Fatal(err)
		}
		return m
	}
	want := func(cFilter string) {
		t.Helper()
		got := members()
		exp := map[string]string{"rf_a": "id,v -", "rf_b": "id,v -", "rf_c": "id,v " + cFilter}
		for k, v := range exp {
			if got[k] != v {
				t.Errorf("after the fix, rf3 publishes %v; want %s as %q (all three members kept)", got, k, v)
			}
		}
		if len(got) != 3 {
			t.Errorf("after the fix, rf3 publishes %v; want exactly three tables", got)
		}
	}

	t.Log("run as printed: the same filter, every member kept")
	before := members()["rf_c"]
	run(f.Run)
	want(strings.TrimPrefix(before, "id,v "))

	t.Log("run with the WHERE clause edited to the key, as the fix says: the table gets that filter and the others stay")
	edited := slices.Clone(f.Run)
	n := 0
	for i, st := range edited {
		if strings.Contains(st.Text, " ADD TABLE ") {
			edited[i].Text = strings.Replace(st.Text, "WHERE ((v > 0))", "WHERE (id > 5)", 1)
			n += strings.Count(edited[i].Text, "WHERE (id > 5)")
		}
	}
	if n != 1 {
		t.Fatalf("no ADD TABLE statement with the current filter to edit in %+v", f.Run)
	}
	run(edited)
	want("(id > 5)")
	if g := e.mustFind("row-filter", "table public.rf_c", 0); g.Severity != Info {
		t.Errorf("a filter on the key: severity %s, want info", g.Severity)
	}

	t.Log("the lock each printed ALTER TABLE form names is the one the server takes")
	e.pub("CREATE UNIQUE INDEX rf_b_v ON rf_b (v)", "ALTER TABLE rf_b ALTER COLUMN v SET NOT NULL",
		"CREATE FUNCTION rf_trg() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END'",
		"CREATE TRIGGER rf_t BEFORE INSERT ON rf_b FOR EACH ROW EXECUTE FUNCTION rf_trg()",
		"CREATE TABLE rf_d (id int NOT NULL, v int NOT NULL)", "CREATE UNIQUE INDEX rf_d_key ON rf_d (id)")
	b := Table{Schema: "public", Name: "rf_b"}
	d := Table{Schema: "public", Name: "rf_d"}
	for _, c := range []struct {
		st          quote.Statement
		table, mode string
	}{
		{quote.SQL("ALTER TABLE %I REPLICA IDENTITY USING INDEX %I;", b.qname(), "rf_b_v"), "rf_b", "AccessExclusiveLock"},
		{quote.SQL("ALTER TABLE %I REPLICA IDENTITY FULL;", b.qname()), "rf_b", "AccessExclusiveLock"},
		{quote.SQL("ALTER TABLE %I REPLICA IDENTITY DEFAULT;", b.qname()), "rf_b", "AccessExclusiveLock"},
		{quote.SQL("ALTER TABLE %I ENABLE TRIGGER %I;", b.qname(), "rf_t"), "rf_b", "ShareRowExclusiveLock"},
		{quote.SQL("ALTER TABLE %I ADD COLUMN %I %s;", b.qname(), "x", quote.Raw("integer")), "rf_b", "AccessExclusiveLock"},
		{quote.SQL("ALTER TABLE %I ALTER COLUMN %I TYPE %s;", b.qname(), "v", quote.Raw("bigint")), "rf_b", "AccessExclusiveLock"},
		{quote.SQL("ALTER TABLE %I ALTER COLUMN %I DROP NOT NULL;", b.qname(), "v"), "rf_b", "AccessExclusiveLock"},
		{quote.SQL("ALTER TABLE %I ADD PRIMARY KEY USING INDEX %I;", d.qname(), "rf_d_key"), "rf_d", "AccessExclusiveLock"},
	} {
		var mode string
		e.lockOf(c.st.Text, c.table, &mode)
		if mode != c.mode {
			t.Errorf("%s takes %s, want %s", c.st.Text, mode, c.mode)
		}
	}
}

// lockOf runs stmt in a transaction it rolls back and reads the strongest
// lock it holds on table.
func (e *env) lockOf(stmt, table string, mode *string) {
	e.t.Helper()
	c, err := pgx.Connect(e.ctx, e.pubDSN)
	if err != nil {
		e.t.Fatal(err)
	}
	defer c.Close(context.Background())
	tx, err := c.Begin(e.ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(e.ctx, stmt, pgx.QueryExecModeSimpleProtocol); err != nil {
		e.t.Fatalf("%s: %v", stmt, err)
	}
	if err := tx.QueryRow(e.ctx, `SELECT mode FROM pg_locks WHERE pid = pg_backend_pid() AND relation = $1::regclass
ORDER BY array_position(ARRAY['AccessExclusiveLock','ExclusiveLock','ShareRowExclusiveLock','ShareLock',
  'ShareUpdateExclusiveLock','RowExclusiveLock','RowShareLock','AccessShareLock'], mode::text) LIMIT 1`, table).Scan(mode); err != nil {
		e.t.Fatalf("locks of %s: %v", stmt, err)
	}
}
