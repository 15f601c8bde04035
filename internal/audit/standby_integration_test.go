package audit

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/lab/cluster"
	"github.com/lagscope/lagscope/internal/quote"
	"github.com/lagscope/lagscope/internal/testkit/labtest"
)

// physEnv is a primary and its physical standby on slot sb1, read as a
// pg_monitor role (watcher) the way check --standby --primary reads them.
type physEnv struct {
	t                  *testing.T
	ctx                context.Context
	major              int
	priDSN, sbDSN      string // superuser
	priWatch, sbWatch  string // pg_monitor only
	primary, standbyCl *cluster.Cluster
	lab                *cluster.Lab
	bin                string
}

func newPhysEnv(t *testing.T) *physEnv {
	t.Helper()
	dir := labtest.Servers(t)
	owner, err := cluster.DefaultOwner()
	if err != nil {
		t.Fatal(err)
	}
	l, err := cluster.NewLab("", "audit "+t.Name(), owner)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	t.Cleanup(cancel)
	// A sane setup: full-page writes compressed, a bound on the slots' WAL,
	// no synchronous standby; the standby at its defaults (LabSettings
	// and Lab.Standby give hot_standby on).
	pri, err := l.Create(ctx, cluster.Options{Name: "primary", Bin: dir.Bin, CPUs: []int{0}, Settings: map[string]string{
		"full_page_writes": "on", "wal_compression": "on", "max_slot_wal_keep_size": "'1GB'"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := pri.Start(ctx); err != nil {
		t.Fatal(err)
	}
	e := &physEnv{t: t, ctx: ctx, major: dir.Version.Major, primary: pri, priDSN: pri.ConnString("postgres"), lab: l, bin: dir.Bin}
	e.exec(e.priDSN, "CREATE ROLE watcher LOGIN IN ROLE pg_monitor", "SELECT pg_create_physical_replication_slot('sb1')")
	sb, err := l.Standby(ctx, pri, cluster.Options{Name: "sb1", Bin: dir.Bin, CPUs: []int{1}, Settings: map[string]string{
		"primary_slot_name": "'sb1'"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := sb.Start(ctx); err != nil {
		t.Fatal(err)
	}
	e.standbyCl, e.sbDSN = sb, sb.ConnString("postgres")
	as := func(dsn string) string { return strings.Replace(dsn, "user=postgres", "user=watcher", 1) }
	e.priWatch, e.sbWatch = as(e.priDSN), as(e.sbDSN)
	e.eventually("the standby to stream from sb1", 30*time.Second, func() bool {
		var n int
		e.value(e.priDSN, "SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'sb1' AND active", &n)
		return n == 1
	})
	return e
}

func (e *physEnv) exec(dsn string, stmts ...string) {
	e.t.Helper()
	c, err := pgx.Connect(e.ctx, dsn)
	if err != nil {
		e.t.Fatalf("connect: %v", err)
	}
	defer c.Close(context.Background())
	for _, s := range stmts {
		if _, err := c.Exec(e.ctx, s, pgx.QueryExecModeSimpleProtocol); err != nil {
			e.t.Fatalf("%s: %v", s, err)
		}
	}
}

func (e *physEnv) value(dsn, q string, dest any) {
	e.t.Helper()
	c, err := pgx.Connect(e.ctx, dsn)
	if err != nil {
		e.t.Fatalf("connect: %v", err)
	}
	defer c.Close(context.Background())
	if err := c.QueryRow(e.ctx, q).Scan(dest); err != nil {
		e.t.Fatalf("%s: %v", q, err)
	}
}

func (e *physEnv) eventually(what string, timeout time.Duration, cond func() bool) {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			e.t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// set runs ALTER SYSTEM SET name = value on dsn and reloads it.
func (e *physEnv) set(dsn, name, value string) {
	e.t.Helper()
	e.exec(dsn, quote.SQL("ALTER SYSTEM SET %I = %L;", name, value).Text, "SELECT pg_reload_conf()")
}

// snap reads the standby and the primary as the pg_monitor role; nothing
// may be unreadable.
func (e *physEnv) snap() Snapshots {
	e.t.Helper()
	s, err := Collect(e.ctx, Options{Standby: e.sbWatch, Primary: e.priWatch})
	if err != nil {
		e.t.Fatalf("collect: %v", err)
	}
	if len(s.Standby.Unreadable)+len(s.Primary.Unreadable) > 0 {
		e.t.Fatalf("pg_monitor could not read: %v %v", s.Standby.Unreadable, s.Primary.Unreadable)
	}
	return s
}

// standbyFindings are the findings of the standby checks on a fresh read.
func (e *physEnv) standbyFindings() []Finding {
	e.t.Helper()
	var out []Finding
	for _, r := range Run(e.snap(), All) {
		if r.Side == StandbySide {
			out = append(out, r.Findings...)
		}
	}
	return out
}

// waitFor polls until a finding of check naming object is there (want) or
// gone (!want), and returns the last one seen.
func (e *physEnv) waitFor(check CheckID, object string, want bool) Finding {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		fs := e.standbyFindings()
		m := matching(fs, string(check), object)
		if len(m) > 0 == want {
			if want {
				e.t.Logf("found %s %s %v: %s", m[0].Severity, check, m[0].Objects, m[0].Found)
				return m[0]
			}
			return Finding{}
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("%s naming %q: want present=%v; standby findings:%s", check, object, want, describeFindings(fs))
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// fix runs a finding's statements as the lab's superuser, each on the
// server it names.
func (e *physEnv) fix(f Finding) {
	e.t.Helper()
	if len(f.Run) == 0 {
		e.t.Fatalf("%s prints no statement", f.Check)
	}
	for _, st := range f.Run {
		if st.Withheld != "" || st.Kind != quote.SQLKind {
			e.t.Fatalf("statement %+v: want SQL", st)
		}
		switch st.On {
		case onStandby:
			e.exec(e.sbDSN, st.Text)
		case onPrimary:
			e.exec(e.priDSN, st.Text)
		default:
			e.t.Fatalf("statement %+v: on neither the standby nor the primary", st)
		}
		e.t.Logf("ran on the %s: %s", st.On, st.Text)
	}
}

// TestIntegrationStandbyChecks: a primary and its standby on slot sb1, read
// as a pg_monitor role on both. The sane setup has no standby finding; each
// check then fires on a setting made for it, and the statements it prints,
// run by the superuser, clear it. A --standby that is a primary and a
// --primary that is a standby are one-line errors.
func TestIntegrationStandbyChecks(t *testing.T) {
	t.Parallel()
	e := newPhysEnv(t)
	begin := time.Now()

	t.Log("a sane standby and primary: no standby finding")
	if fs := e.standbyFindings(); len(fs) > 0 {
		t.Fatalf("sane setup:%s", describeFindings(fs))
	}
	s := e.snap()
	if s.Standby.Receiver == nil || s.Standby.Receiver.Slot != "sb1" || s.Standby.ApplicationName() != "sb1" {
		t.Fatalf("the standby's receiver %+v, application_name %q: want streaming from sb1 as sb1", s.Standby.Receiver, s.Standby.ApplicationName())
	}
	if w, why := s.feed(); w == nil || w.Slot != "sb1" {
		t.Fatalf("no walsender found for the standby: %s", why)
	}
	if s.Standby.SystemID == "" || s.Standby.SystemID != s.Primary.SystemID {
		t.Errorf("system identifiers as pg_monitor: standby %q, primary %q; want the same, read", s.Standby.SystemID, s.Primary.SystemID)
	}

	t.Log("the servers swapped: one-line errors")
	if _, err := Collect(e.ctx, Options{Standby: e.priWatch}); err == nil || !strings.Contains(err.Error(), "not in recovery") || strings.Contains(err.Error(), "\n") {
		t.Errorf("--standby on the primary: %v", err)
	}
	if _, err := Collect(e.ctx, Options{Standby: e.sbWatch, Primary: e.sbWatch}); err == nil || !strings.Contains(err.Error(), "in recovery") || strings.Contains(err.Error(), "\n") {
		t.Errorf("--primary on the standby: %v", err)
	}

	t.Log("a --primary that is another server: a one-line error naming both system identifiers")
	// Its own initdb: a copy of the lab's template data directory (make
	// test sets LAGSCOPE_LAB_TEMPLATES) would carry the primary's system
	// identifier.
	other, err := e.lab.Create(e.ctx, cluster.Options{Name: "other", Bin: e.bin, CPUs: []int{0}, OwnInitdb: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Start(e.ctx); err != nil {
		t.Fatal(err)
	}
	e.exec(other.ConnString("postgres"), "CREATE ROLE watcher LOGIN IN ROLE pg_monitor")
	_, err = Collect(e.ctx, Options{Standby: e.sbWatch, Primary: strings.Replace(other.ConnString("postgres"), "user=postgres", "user=watcher", 1)})
	if err == nil || !strings.Contains(err.Error(), "not this standby's primary") || strings.Contains(err.Error(), "\n") {
		t.Errorf("--primary on an unrelated server: %v", err)
	}
	if err := other.Stop(); err != nil {
		t.Fatal(err)
	}

	t.Log("standby-delay-unbounded")
	e.set(e.sbDSN, "max_standby_streaming_delay", "-1")
	f := e.waitFor(CheckStandbyDelayUnbounded, "setting max_standby_streaming_delay (standby)", true)
	if !strings.Contains(f.Why, "streams now") {
		t.Errorf("the finding does not say the standby streams: %s", f.Why)
	}
	e.fix(f)
	e.waitFor(CheckStandbyDelayUnbounded, "", false)

	t.Log("standby-feedback-xmin: a standby transaction holds xmin on the primary while the primary's transactions go on")
	e.set(e.sbDSN, "hot_standby_feedback", "on")
	holder, err := pgx.Connect(e.ctx, e.sbDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(context.Background())
	if _, err := holder.Exec(e.ctx, "BEGIN ISOLATION LEVEL REPEATABLE READ"); err != nil {
		t.Fatal(err)
	}
	if _, err := holder.Exec(e.ctx, "SELECT count(*) FROM pg_class"); err != nil {
		t.Fatal(err)
	}
	e.exec(e.priDSN, "CREATE TABLE burn (x int)")
	for i := 0; i < 60; i++ {
		e.exec(e.priDSN, "INSERT INTO burn VALUES (1)")
	}
	var age int64
	e.eventually("the slot's xmin to age past 50 transactions", 30*time.Second, func() bool {
		e.value(e.priDSN, "SELECT coalesce(age(xmin), -1)::int8 FROM pg_replication_slots WHERE slot_name = 'sb1'", &age)
		return age >= 50
	})
	f = e.waitFor(CheckStandbyFeedbackXmin, "setting hot_standby_feedback (standby)", true)
	if !strings.Contains(f.Found, "transactions back on the primary") {
		t.Errorf("the finding does not give the xmin age on the primary (%d now): %s", age, f.Found)
	}
	if _, err := holder.Exec(e.ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	e.fix(f)
	e.waitFor(CheckStandbyFeedbackXmin, "", false)
	e.eventually("the slot's xmin to be released", 30*time.Second, func() bool {
		e.value(e.priDSN, "SELECT coalesce(age(xmin), -1)::int8 FROM pg_replication_slots WHERE slot_name = 'sb1'", &age)
		return age == -1
	})

	t.Log("standby-apply-delay")
	e.set(e.sbDSN, "recovery_min_apply_delay", "5min")
	f = e.waitFor(CheckStandbyApplyDelay, "setting recovery_min_apply_delay (standby)", true)
	if !strings.Contains(f.Found, "5min") {
		t.Errorf("the finding does not say the delay: %s", f.Found)
	}
	e.fix(f)
	e.waitFor(CheckStandbyApplyDelay, "", false)

	t.Log("standby-wal-compression")
	e.set(e.priDSN, "wal_compression", "off")
	f = e.waitFor(CheckStandbyWALCompression, "setting wal_compression (primary)", true)
	if e.major >= 14 && !strings.Contains(f.Found, "full-page images in") {
		t.Errorf("the finding does not give pg_stat_wal's page images: %s", f.Found)
	}
	e.fix(f)
	e.waitFor(CheckStandbyWALCompression, "", false)

	t.Log("standby-slot-unbounded")
	e.set(e.priDSN, "max_slot_wal_keep_size", "-1")
	f = e.waitFor(CheckStandbySlotUnbounded, "slot sb1 (primary)", true)
	if !strings.Contains(f.Found, "this standby streams from") {
		t.Errorf("the slot is not named as this standby's: %s", f.Found)
	}
	e.fix(f)
	e.waitFor(CheckStandbySlotUnbounded, "", false)

	t.Log("standby-sync-commit: remote_apply couples the primary's commits to this standby's replay")
	e.exec(e.priDSN, "ALTER SYSTEM SET synchronous_standby_names = 'FIRST 1 (sb1)'", "ALTER SYSTEM SET synchronous_commit = 'remote_apply'", "SELECT pg_reload_conf()")
	e.eventually("the standby to be synchronous", 30*time.Second, func() bool {
		var st string
		e.value(e.priDSN, "SELECT coalesce(max(sync_state), '') FROM pg_stat_replication", &st)
		return st == "sync"
	})
	e.exec(e.priDSN, "INSERT INTO burn VALUES (2)") // a commit that waits for replay
	f = e.waitFor(CheckStandbySyncCommit, "setting synchronous_commit (primary)", true)
	if f.Severity != Warning || !strings.Contains(f.Found, "sync_state sync") {
		t.Errorf("remote_apply: %s %s", f.Severity, f.Found)
	}
	e.fix(f)
	deadline := time.Now().Add(20 * time.Second)
	for {
		g := e.waitFor(CheckStandbySyncCommit, "setting synchronous_commit (primary)", true)
		if g.Severity == Info && len(g.Run) == 0 && strings.Contains(g.Found, "synchronous_commit = on") {
			t.Logf("after the fix the coupling is to the flush: %s", g.Found)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the fix: %s %s", g.Severity, g.Found)
		}
		time.Sleep(300 * time.Millisecond)
	}
	e.exec(e.priDSN, "ALTER SYSTEM RESET synchronous_standby_names", "ALTER SYSTEM RESET synchronous_commit", "SELECT pg_reload_conf()")
	e.waitFor(CheckStandbySyncCommit, "", false)

	if e.major >= 15 {
		t.Log("standby-recovery-prefetch")
		e.set(e.sbDSN, "recovery_prefetch", "off")
		e.fix(e.waitFor(CheckStandbyRecoveryPrefetch, "setting recovery_prefetch (standby)", true))
		e.waitFor(CheckStandbyRecoveryPrefetch, "", false)
	}

	t.Log("standby-status-interval")
	e.set(e.sbDSN, "wal_receiver_status_interval", "0")
	f = e.waitFor(CheckStandbyStatusInterval, "setting wal_receiver_status_interval (standby)", true)
	if f.Severity != Warning || !strings.Contains(f.Found, "every 30s (half its wal_sender_timeout, 1min)") {
		t.Errorf("interval 0: %s %s", f.Severity, f.Found)
	}
	e.fix(f)
	e.waitFor(CheckStandbyStatusInterval, "", false)

	t.Log("a role without pg_monitor: the receiver and the walsenders are not readable, saying what to grant")
	e.exec(e.priDSN, "CREATE ROLE nobody_much LOGIN")
	e.eventually("the role to reach the standby", 30*time.Second, func() bool {
		var n int
		e.value(e.sbDSN, "SELECT count(*) FROM pg_roles WHERE rolname = 'nobody_much'", &n)
		return n == 1
	})
	plain := func(dsn string) string { return strings.Replace(dsn, "user=postgres", "user=nobody_much", 1) }
	s, err = Collect(e.ctx, Options{Standby: plain(e.sbDSN), Primary: plain(e.priDSN)})
	if err != nil {
		t.Fatal(err)
	}
	if why := s.Standby.Unreadable[StandbyReceiver]; !strings.Contains(why, "pg_read_all_stats") {
		t.Errorf("the receiver as a plain role: %q", why)
	}
	if why := s.Primary.Unreadable[PrimaryWalsenders]; !strings.Contains(why, "pg_read_all_stats") {
		t.Errorf("the walsenders as a plain role: %q", why)
	}
	t.Logf("PostgreSQL %d: every standby check fired and its fix cleared it in %.1f s", e.major, time.Since(begin).Seconds())
}
