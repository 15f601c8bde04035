package audit

import (
	"strings"
	"testing"
)

// TestIntegrationApplyRowCosts makes a subscribed table cost the apply
// worker per row (a CHECK and a domain CHECK calling a function, a stored
// generated column, an expression GIN index, an exclusion constraint, a
// foreign key), sees the reader read them as a pg_monitor role, the check
// name each with its definition, and the server accept the statements it
// prints, after which their findings go.
func TestIntegrationApplyRowCosts(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 0, nil)
	e.enable()
	for _, side := range []func(...string){e.pub, e.sub} {
		side(`CREATE TABLE "cost ly" (id bigint PRIMARY KEY, price int NOT NULL, doc text NOT NULL)`)
	}
	e.sub(`CREATE FUNCTION "slow check"(p int) RETURNS boolean LANGUAGE plpgsql AS $$BEGIN RETURN p >= 0; END$$`,
		`CREATE DOMAIN posint AS int CHECK ("slow check"(VALUE))`,
		`CREATE TABLE parent (id bigint PRIMARY KEY)`,
		`ALTER TABLE "cost ly" ADD COLUMN qty posint, ADD COLUMN parent bigint REFERENCES parent,
		   ADD COLUMN doc_len int GENERATED ALWAYS AS (length(doc)) STORED,
		   ADD CONSTRAINT "price ok" CHECK ("slow check"(price)), ADD CONSTRAINT plain_ok CHECK (price < 1000000)`,
		`CREATE INDEX "cost ly tsv" ON "cost ly" USING gin (to_tsvector('simple', doc))`)
	e.pub(`ALTER PUBLICATION lab_pub ADD TABLE "cost ly"`)
	e.refresh(false)

	f := e.mustFind(string(CheckApplyRowCosts), `table public."cost ly"`, 0)
	for _, want := range []string{`CHECK constraint "price ok": CHECK ("slow check"(price)) (calls "slow check"(integer))`,
		`domain constraint posint_check`, `generated column doc_len: GENERATED ALWAYS AS (length(doc)) STORED`,
		`expression index "cost ly tsv": CREATE INDEX "cost ly tsv" ON public."cost ly" USING gin (to_tsvector('simple'::regconfig, doc))`} {
		if !strings.Contains(f.Found, want) {
			t.Errorf("found lacks %q:\n%s", want, f.Found)
		}
	}
	if strings.Contains(f.Found, "plain_ok") {
		t.Errorf("a CHECK of built-ins named: %s", f.Found)
	}
	if !strings.Contains(f.Why, "cost ly_parent_fkey") || !strings.Contains(f.Why, "do not fire") {
		t.Errorf("the foreign key is not said not to fire: %s", f.Why)
	}

	t.Log("as a pg_monitor role the same is read")
	e.pub("CREATE ROLE watcher LOGIN IN ROLE pg_monitor")
	e.sub("CREATE ROLE watcher LOGIN IN ROLE pg_monitor")
	as := func(dsn string) string { return strings.Replace(dsn, "user=postgres", "user=watcher", 1) }
	s := e.snap(as(e.pubDSN), as(e.subDSN))
	if why := s.Subscriber.Unreadable[SubRowCosts]; why != "" {
		t.Fatalf("pg_monitor could not read the row costs: %s", why)
	}
	mon := matching(Run(s, []Check{applyRowCosts})[0].Findings, string(CheckApplyRowCosts), `table public."cost ly"`)
	if len(mon) != 1 || mon[0].Found != f.Found {
		t.Errorf("as pg_monitor: %+v\nas superuser: %s", mon, f.Found)
	}

	t.Log("the server runs what the fix prints")
	if len(f.Run) != 2 {
		t.Fatalf("run: %+v", f.Run)
	}
	for _, st := range f.Run {
		e.sub(st.Text)
	}
	f = e.mustFind(string(CheckApplyRowCosts), `table public."cost ly"`, 0)
	if strings.Contains(f.Found, "price ok") || strings.Contains(f.Found, "cost ly tsv") || len(f.Run) != 0 {
		t.Errorf("after the fix: %s %+v", f.Found, f.Run)
	}
}
