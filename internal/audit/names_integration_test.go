package audit

import (
	"slices"
	"testing"

	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/quote"
	"github.com/lagscope/lagscope/internal/testkit/labtest"
)

// crafted is a table name that breaks out of its quoted literal when it is
// inlined with its quotes doubled and standard_conforming_strings is off
// (\' then escapes the first quote of the pair): the list the readers
// once built became a call of canary(), and the rest of the line a comment.
const crafted = `\', canary()::text]) n WHERE to_regclass(n) IS NOT NULL) --`

// TestIntegrationNamesAreNeverReadAsSQL reads, on one lab pair whose
// databases have standard_conforming_strings = off (ALTER DATABASE, as a
// database owner may), a published and subscribed table with a name built
// to break out of a quoted literal, and tables named by key words that
// quote_ident quotes (position, window, left): the crafted table is read
// with its identity and canary() never runs, on lagscope's own sessions
// and on sessions given to it (as diagnose reads the setup), and the
// key-word tables are matched by the checks that pair a subscriber's table
// with the publisher's. The reads take one branch from 15 on: it runs on
// one version.
func TestIntegrationNamesAreNeverReadAsSQL(t *testing.T) {
	labtest.Once(t)
	t.Parallel()
	e := newEnv(t, 0, nil)
	e.enable()
	name := func(s string) string { id, _ := quote.Ident(s); return id }
	for _, side := range []func(...string){e.pub, e.sub} {
		// canary() writes a row; in a read-only session its INSERT fails,
		// and so does the read that called it: either way, it shows.
		side("CREATE TABLE canary (at timestamptz)",
			"CREATE FUNCTION canary() RETURNS int LANGUAGE plpgsql AS $$BEGIN INSERT INTO canary VALUES (now()); RETURN 1; END$$",
			"CREATE TABLE "+name(crafted)+" (id int NOT NULL, v int)",
			`CREATE TABLE "position" (id int NOT NULL, v int)`)
	}
	e.pub(`CREATE TABLE "window" (id int PRIMARY KEY, v int NOT NULL)`,
		`CREATE TABLE "left" (id int PRIMARY KEY, v int)`,
		"ALTER TABLE "+name(crafted)+" REPLICA IDENTITY FULL",
		`ALTER TABLE "position" REPLICA IDENTITY FULL`)
	e.sub("ALTER TABLE "+name(crafted)+" ADD PRIMARY KEY (id)",
		// FULL on the publisher, no usable index here: an expression
		// index (extra, and unusable), and an ALWAYS trigger.
		`CREATE INDEX position_expr ON "position" ((v + 1))`,
		"CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NEW; END$$",
		`CREATE TRIGGER position_touch BEFORE UPDATE ON "position" FOR EACH ROW EXECUTE FUNCTION touch()`,
		`ALTER TABLE "position" ENABLE ALWAYS TRIGGER position_touch`,
		// The subscriber finds rows by (id, v); the publisher sends id.
		`CREATE TABLE "window" (id int NOT NULL, v int NOT NULL, PRIMARY KEY (id, v))`,
		// Partitioned here: the trigger is on its leaf.
		`CREATE TABLE "left" (id int PRIMARY KEY, v int) PARTITION BY HASH (id)`,
		`CREATE TABLE left_0 PARTITION OF "left" FOR VALUES WITH (MODULUS 1, REMAINDER 0)`,
		`CREATE TRIGGER left_touch BEFORE UPDATE ON left_0 FOR EACH ROW EXECUTE FUNCTION touch()`,
		`ALTER TABLE left_0 ENABLE ALWAYS TRIGGER left_touch`)
	e.pub(`ALTER PUBLICATION lab_pub ADD TABLE "position", "window", "left", ` + name(crafted))
	e.refresh(false)
	for _, dsn := range []string{e.pubDSN, e.subDSN} {
		e.exec(dsn, "ALTER DATABASE lab SET standard_conforming_strings = off")
		var scs string
		e.value(dsn, "SHOW standard_conforming_strings", &scs)
		if scs != "off" {
			t.Fatalf("a new session has standard_conforming_strings = %s, want off (the database's setting)", scs)
		}
	}

	// lagscope's sessions: strings standard, read-only.
	conns := map[string]*pg.Conn{}
	for role, dsn := range map[string]string{"publisher": e.pubDSN, "subscriber": e.subDSN} {
		c, err := pg.Connect(e.ctx, dsn, role)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns[role] = c
		for _, set := range []string{"standard_conforming_strings", "transaction_read_only"} {
			var v string
			if err := c.QueryRow(e.ctx, "SELECT current_setting($1)", set).Scan(&v); err != nil {
				t.Fatal(err)
			}
			if v != "on" {
				t.Errorf("%s session: %s = %s, want on", role, set, v)
			}
		}
	}

	check := func(how string, s Snapshots) {
		t.Helper()
		for side, u := range map[string]map[Section]string{"publisher": s.Publisher.Unreadable, "subscriber": s.Subscriber.Unreadable} {
			if len(u) > 0 {
				t.Errorf("%s: the %s could not be read (did the name run?): %v", how, side, u)
			}
		}
		pt := tableNamed(s.Publisher.Tables, crafted)
		if pt == nil || pt.ReplicaIdentity != "full" || len(pt.Published) != 1 || pt.Published[0].Publication != "lab_pub" {
			t.Errorf("%s: the crafted table is not read on the publisher as published with REPLICA IDENTITY FULL: %+v", how, pt)
		}
		st := tableNamed(s.Subscriber.Tables, crafted)
		if st == nil || st.ReplicaIdentity != "default" || st.primaryKey() == nil {
			t.Fatalf("%s: the crafted table is not read on the subscriber with its primary key: %+v", how, st)
		}
		var rel *SubscriptionRel
		for i, r := range s.Subscriber.Subscriptions[0].Relations {
			if r.Name == crafted {
				rel = &s.Subscriber.Subscriptions[0].Relations[i]
			}
		}
		if rel == nil || rel.OID != st.OID || rel.Schema != "public" || rel.State != "r" {
			t.Errorf("%s: the crafted table's subscription relation: %+v (table oid %d)", how, rel, st.OID)
		}
		for _, dsn := range []string{e.pubDSN, e.subDSN} {
			var n int
			e.value(dsn, "SELECT count(*) FROM canary", &n)
			if n != 0 {
				t.Fatalf("%s: canary() ran %d times", how, n)
			}
		}
	}
	s := e.snap()
	check("check (sessions of its own)", s)
	given, err := Collect(e.ctx, Options{Publisher: e.pubDSN, Subscriber: e.subDSN, Session: func(role string) *pg.Conn { return conns[role] }})
	if err != nil {
		t.Fatalf("collect on open sessions: %v", err)
	}
	check("diagnose's setup read (sessions given)", given)
	// The names are parameters whatever the session's strings: readers on
	// sessions with standard_conforming_strings off read the same.
	for _, c := range conns {
		if _, err := c.Exec(e.ctx, "SET standard_conforming_strings = off"); err != nil {
			t.Fatal(err)
		}
	}
	pub, err := ReadPublisher(e.ctx, conns["publisher"])
	if err != nil {
		t.Fatal(err)
	}
	sub, err := ReadSubscriber(e.ctx, conns["subscriber"])
	if err != nil {
		t.Fatal(err)
	}
	check("readers on sessions with standard_conforming_strings off", Snapshots{Publisher: pub, Subscriber: sub})

	// The key-word tables, matched by OID and by their names as they are.
	var fs []Finding
	for _, r := range Run(s, All) {
		fs = append(fs, r.Findings...)
	}
	table := func(n string) string { return "table " + Table{Schema: "public", Name: n}.Qualified() }
	for _, want := range []struct{ check, object string }{
		{"full-identity-no-index", table("position")},
		{"extra-subscriber-indexes", table("position")},
		{"replica-triggers", "trigger position_touch"},
		{"replica-identity-mismatch", table("window")},
		{"replica-triggers", "trigger left_touch"},
	} {
		if len(matching(fs, want.check, want.object)) == 0 {
			t.Errorf("no %s finding naming %s; findings:%s", want.check, want.object, describeFindings(fs))
		}
	}
	left := tableNamed(s.Subscriber.Tables, "left_0")
	root := tableNamed(s.Subscriber.Tables, "left")
	if left == nil || root == nil || left.Parent != root.OID || root.Partitions != 1 || root.Strategy != "hash" || left.Strategy != "hash" {
		t.Errorf("the subscriber's partitions, from pg_inherits: root %+v, leaf %+v", root, left)
	}
}

// tableNamed finds the table of that name (any schema).
func tableNamed(tables []Table, name string) *Table {
	i := slices.IndexFunc(tables, func(t Table) bool { return t.Name == name })
	if i < 0 {
		return nil
	}
	return &tables[i]
}
