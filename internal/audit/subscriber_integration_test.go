package audit

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/pg"
)

// TestIntegrationSubscriberChecks creates each subscriber and cross-side
// misconfiguration on a real lab pair, sees the finding name the right
// objects, fixes it and sees the finding go.
func TestIntegrationSubscriberChecks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 0, nil)

	t.Log("the subscription is created disabled")
	e.mustFind("subscription-stopped", "subscription lab_sub", 0)
	e.enable()
	e.mustNotFind("subscription-stopped", "subscription lab_sub", 0)
	checkLimitsInUse(e)

	t.Log("REPLICA IDENTITY FULL on the publisher and no usable index on the subscriber; three extra indexes; an ALWAYS trigger")
	for _, side := range []func(...string){e.pub, e.sub} {
		side("CREATE TABLE full_t (id bigint NOT NULL, k bigint NOT NULL, pad text NOT NULL)",
			"INSERT INTO full_t SELECT g, 0, repeat('x', 50) FROM generate_series(1, 2000) g",
			"ALTER TABLE full_t REPLICA IDENTITY FULL")
	}
	e.sub("CREATE INDEX full_t_partial ON full_t (id) WHERE id > 0")
	e.pub("ALTER PUBLICATION lab_pub ADD TABLE full_t")
	e.refresh(false)
	e.sub("CREATE INDEX hot_k ON hot (k)", "CREATE INDEX hot_v ON hot (v)", "CREATE INDEX hot_kv ON hot (k, v)")
	e.sub("CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NEW; END$$",
		"CREATE TRIGGER hot_touch BEFORE UPDATE ON hot FOR EACH ROW EXECUTE FUNCTION touch()",
		"ALTER TABLE hot ENABLE ALWAYS TRIGGER hot_touch")
	e.save("misconfigured", e.snap())
	checkReadOnSessions(e)

	f := e.mustFind("full-identity-no-index", "table public.full_t", 0)
	if e.major >= 16 && !strings.Contains(f.Found, "full_t_partial: partial index") {
		t.Errorf("the finding does not say why full_t_partial is not usable: %s", f.Found)
	}
	if e.major >= 16 {
		e.sub("CREATE INDEX full_t_id ON full_t (id)")
	} else {
		e.sub("ALTER TABLE full_t ADD PRIMARY KEY (id)")
	}
	e.mustNotFind("full-identity-no-index", "table public.full_t", 0)

	if f := e.mustFind("extra-subscriber-indexes", "table public.hot", 0); f.Severity != Warning || !strings.Contains(f.Found, "hot_kv") {
		t.Errorf("extra indexes: %s %s", f.Severity, f.Found)
	}
	t.Log("a reader on the subscriber scans one of them: the fix drops only the unused ones, one statement each")
	e.sub("SET enable_seqscan = off", "SET enable_bitmapscan = off", "SELECT count(*) FROM hot WHERE k = 1")
	var drops []string
	e.eventually("the reader's index scan counted", 10*time.Second, func() bool {
		f := e.mustFind("extra-subscriber-indexes", "table public.hot", 0)
		drops = nil
		for _, st := range f.Run {
			if st.On == onSubscriber && strings.HasPrefix(st.Text, "DROP INDEX CONCURRENTLY public.hot_") {
				drops = append(drops, st.Text)
			}
		}
		return len(drops) == len(f.Run) && len(drops) >= 1 && len(drops) < 3 && strings.Contains(f.Fix, "the subscriber's readers scan") &&
			strings.Contains(f.Found, "0 scans")
	})
	e.sub(drops...) // as printed: each on its own, outside a transaction block
	e.sub("DROP INDEX IF EXISTS hot_k", "DROP INDEX IF EXISTS hot_v", "DROP INDEX IF EXISTS hot_kv")
	e.mustNotFind("extra-subscriber-indexes", "table public.hot", 0)

	e.mustFind("replica-triggers", "trigger hot_touch", 0)
	e.sub("ALTER TABLE hot ENABLE TRIGGER hot_touch")
	e.mustNotFind("replica-triggers", "trigger hot_touch", 0)

	if e.major >= 15 {
		t.Log("a row on the subscriber that the publisher inserts too: the apply worker fails on it")
		e.sub("INSERT INTO hot VALUES (100001, 0, 0, 'local')")
		e.pub("INSERT INTO hot VALUES (100001, 0, 0, 'remote')")
		e.mustFind("apply-errors", "subscription lab_sub", 20*time.Second)
		e.sub("DELETE FROM hot WHERE id = 100001")
		e.caughtUp()
		e.sub("SELECT pg_stat_reset_subscription_stats(oid) FROM pg_subscription WHERE subname = 'lab_sub'")
		e.mustNotFind("apply-errors", "subscription lab_sub", 5*time.Second)
	}

	t.Log("a table whose initial copy keeps failing on the subscriber, until the cause goes")
	e.pub("CREATE TABLE notready (id int PRIMARY KEY)", "INSERT INTO notready SELECT generate_series(1, 10)")
	e.sub("CREATE TABLE notready (id int PRIMARY KEY CHECK (id < 0))")
	e.pub("ALTER PUBLICATION lab_pub ADD TABLE notready")
	e.refresh(true)
	e.mustFind("tables-not-ready", "table public.notready", 0)
	if e.major >= 15 {
		// A copy must have failed before the cause goes (the tablesync
		// worker may start after the test looked: make test on 15.18 once
		// dropped the constraint before any copy ran, and nothing was
		// counted).
		e.eventually("a failed copy counted (sync_error_count)", 30*time.Second, func() bool {
			var n int64
			e.value(e.subDSN, "SELECT coalesce(sum(sync_error_count), 0)::bigint FROM pg_stat_subscription_stats WHERE subname = 'lab_sub'", &n)
			return n > 0
		})
	}
	e.sub("ALTER TABLE notready DROP CONSTRAINT notready_id_check")
	e.mustNotFind("tables-not-ready", "table public.notready", 30*time.Second)
	if e.major >= 15 {
		// The failed copies counted as sync errors.
		e.mustFind("apply-errors", "subscription lab_sub", 10*time.Second)
		e.sub("SELECT pg_stat_reset_subscription_stats(oid) FROM pg_subscription WHERE subname = 'lab_sub'")
	}

	t.Log("published columns missing on the subscriber and of another type")
	e.pub("CREATE TABLE cm (id int PRIMARY KEY, a int, b text)")
	e.sub("CREATE TABLE cm (id int PRIMARY KEY, a bigint)")
	e.pub("ALTER PUBLICATION lab_pub ADD TABLE cm")
	e.refresh(false)
	f = e.mustFind("column-mismatch", "table public.cm", 0)
	if f.Severity != Error || !strings.Contains(f.Found, "b text") || !strings.Contains(f.Found, "a is integer on the publisher, bigint here") {
		t.Errorf("column-mismatch: %s %s", f.Severity, f.Found)
	}
	e.sub("ALTER TABLE cm ADD COLUMN b text", "ALTER TABLE cm ALTER COLUMN a TYPE integer")
	e.mustNotFind("column-mismatch", "table public.cm", 0)

	t.Log("the subscriber finds rows by a key the publisher does not send")
	e.pub("CREATE TABLE rim (id int PRIMARY KEY, code int NOT NULL UNIQUE)", "ALTER TABLE rim REPLICA IDENTITY USING INDEX rim_code_key")
	e.sub("CREATE TABLE rim (id int PRIMARY KEY, code int NOT NULL UNIQUE)")
	e.pub("ALTER PUBLICATION lab_pub ADD TABLE rim")
	e.refresh(false)
	if f := e.mustFind("replica-identity-mismatch", "table public.rim", 0); f.Severity != Error {
		t.Errorf("replica-identity-mismatch: %s %s", f.Severity, f.Found)
	}
	e.pub("ALTER TABLE rim REPLICA IDENTITY DEFAULT")
	e.mustNotFind("replica-identity-mismatch", "table public.rim", 0)

	if e.major >= 14 {
		t.Log("text transfer and no streaming")
		e.alterSub("ALTER SUBSCRIPTION lab_sub SET (binary = false, streaming = off)")
		e.mustFind("binary-transfer", "subscription lab_sub", 0)
		e.mustFind("streaming-off", "subscription lab_sub", 0)
		e.alterSub("ALTER SUBSCRIPTION lab_sub SET (binary = true, streaming = on)")
		e.mustNotFind("binary-transfer", "subscription lab_sub", 0)
		e.mustNotFind("streaming-off", "subscription lab_sub", 0)
	}

	t.Log("a hash-partitioned table received by one subscription, then by one per partition")
	for _, side := range []func(...string){e.pub, e.sub} {
		side("CREATE TABLE parted (id int PRIMARY KEY, k int) PARTITION BY HASH (id)",
			"CREATE TABLE parted_p0 PARTITION OF parted FOR VALUES WITH (MODULUS 2, REMAINDER 0)",
			"CREATE TABLE parted_p1 PARTITION OF parted FOR VALUES WITH (MODULUS 2, REMAINDER 1)")
	}
	e.pub("ALTER PUBLICATION lab_pub ADD TABLE parted")
	e.refresh(false)
	e.mustFind("partitioned-one-subscription", "table public.parted", 0)
	e.pub("ALTER PUBLICATION lab_pub DROP TABLE parted")
	e.refresh(false)
	for i := 0; i < 2; i++ {
		e.pub(fmt.Sprintf("CREATE PUBLICATION part_pub%d FOR TABLE parted_p%d", i, i))
		e.sub(fmt.Sprintf("CREATE SUBSCRIPTION part_sub%d CONNECTION '%s' PUBLICATION part_pub%d WITH (copy_data = false)", i, e.pubDSN, i))
	}
	e.mustNotFind("partitioned-one-subscription", "table public.parted", 0)
	e.mustFind("slots-per-database", "slot part_sub1", 0)
	e.sub("DROP SUBSCRIPTION part_sub0", "DROP SUBSCRIPTION part_sub1")

	t.Log("one apply worker and two sync workers wanted, two workers allowed")
	e.sub("ALTER SYSTEM SET max_logical_replication_workers = 2")
	e.restart(e.p.Sub)
	e.mustFind("worker-headroom", "setting max_logical_replication_workers", 0)
	e.sub("ALTER SYSTEM SET max_logical_replication_workers = 12")
	e.restart(e.p.Sub)
	e.mustNotFind("worker-headroom", "", 0)

	t.Log("a pg_monitor role on both sides, then one that may not read two catalogs")
	e.pub("CREATE ROLE watcher LOGIN IN ROLE pg_monitor")
	e.sub("CREATE ROLE watcher LOGIN IN ROLE pg_monitor")
	as := func(dsn string) string { return strings.Replace(dsn, "user=postgres", "user=watcher", 1) }
	statuses := func(rs []Result) map[string]string {
		m := map[string]string{}
		for _, r := range rs {
			m[r.Check] = string(r.Status) + " " + r.Reason
		}
		return m
	}
	admin := statuses(Run(e.snap(), All))
	monitor := statuses(Run(e.snap(as(e.pubDSN), as(e.subDSN)), All))
	for id, st := range admin {
		if monitor[id] != st {
			t.Errorf("%s: %q as pg_monitor, %q as superuser", id, monitor[id], st)
		}
	}
	e.pub("REVOKE SELECT ON pg_catalog.pg_replication_slots FROM PUBLIC")
	e.sub("REVOKE SELECT ON pg_catalog.pg_subscription_rel FROM PUBLIC")
	s := e.snap(as(e.pubDSN), as(e.subDSN))
	restricted := Run(s, All)
	for _, want := range []struct{ check, reason string }{
		{"inactive-slot", "needs SELECT on pg_replication_slots"},
		{"tables-not-ready", "needs SELECT on pg_subscription_rel"},
		{"full-identity-no-index", "needs SELECT on pg_subscription_rel"},
	} {
		if got := statuses(restricted)[want.check]; !strings.HasPrefix(got, string(StatusNotChecked)) || !strings.Contains(got, want.reason) {
			t.Errorf("%s without the catalog: %q, want not checked, %s", want.check, got, want.reason)
		}
	}
	if got := statuses(restricted)["wal-level"]; got != admin["wal-level"] {
		t.Errorf("wal-level without pg_replication_slots: %q, want %q", got, admin["wal-level"])
	}
	var out strings.Builder
	if err := Text(&out, NewReport(s, restricted)); err != nil {
		t.Fatal(err)
	}
	t.Logf("as a pg_monitor role without two catalogs:\n%s", out.String())
	e.pub("GRANT SELECT ON pg_catalog.pg_replication_slots TO PUBLIC")
	e.sub("GRANT SELECT ON pg_catalog.pg_subscription_rel TO PUBLIC")
}

// checkLimitsInUse reads the limits of a real pair with its apply worker
// running: the subscriber's origin limit (by version) and its workers count
// it, the publisher's slots and walsenders count its slot and walsender.
func checkLimitsInUse(e *env) {
	e.t.Helper()
	origins := OriginLimit(e.major)
	var got map[string]Limit
	e.eventually("the apply worker counted in the limits", 10*time.Second, func() bool {
		got = map[string]Limit{}
		for _, l := range Limits(e.snap()) {
			if l.Subscription == "" {
				got[l.Side+" "+l.Setting] = l
			}
		}
		return got["subscriber "+origins].Used >= 1
	})
	for _, k := range []string{"subscriber " + origins, "subscriber max_logical_replication_workers", "publisher max_replication_slots", "publisher max_wal_senders"} {
		if l, ok := got[k]; !ok || l.Used < 1 || l.Max < l.Used {
			e.t.Errorf("%s: %+v, want at least the pair's own one in use, under its setting (limits %v)", k, l, got)
		}
	}
}

// checkReadOnSessions reads the snapshots on open sessions (diagnose reads
// the setup on the sessions it sampled with): the same findings as on
// sessions of their own, and each session keeps its own statement timeout.
func checkReadOnSessions(e *env) {
	e.t.Helper()
	conns := map[string]*pg.Conn{}
	for role, dsn := range map[string]string{"publisher": e.pubDSN, "subscriber": e.subDSN} {
		c, err := pg.Connect(e.ctx, dsn, role)
		if err != nil {
			e.t.Fatal(err)
		}
		defer c.Close()
		conns[role] = c
	}
	s, err := Collect(e.ctx, Options{Publisher: e.pubDSN, Subscriber: e.subDSN, Session: func(role string) *pg.Conn { return conns[role] }})
	if err != nil {
		e.t.Fatalf("collect on open sessions: %v", err)
	}
	// What they found where (their figures, such as the sessions in use,
	// may differ between the two reads).
	where := func(fs []Finding) string {
		var b strings.Builder
		for _, f := range fs {
			fmt.Fprintf(&b, "\n  %s %v", f.Check, f.Objects)
		}
		return b.String()
	}
	var onSessions []Finding
	for _, r := range Run(s, All) {
		onSessions = append(onSessions, r.Findings...)
	}
	got, want := where(onSessions), where(e.findings())
	if got != want {
		e.t.Errorf("findings read on open sessions:\n%s\nwant (sessions of their own):\n%s", got, want)
	}
	for role, c := range conns {
		var timeout string
		if err := c.QueryRow(e.ctx, "SHOW statement_timeout").Scan(&timeout); err != nil || c.IsClosed() {
			e.t.Fatalf("%s: the session given is not usable after the read: %v", role, err)
		}
		if want := fmt.Sprintf("%dms", pg.DefaultStatementTimeout.Milliseconds()); timeout != want && timeout != pg.DefaultStatementTimeout.String() {
			e.t.Errorf("%s: statement_timeout %s after the read, want the session's own %s", role, timeout, pg.DefaultStatementTimeout)
		}
	}
}
