package audit

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/lab/cluster"
	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/testkit/labtest"
)

var record = flag.Bool("record", false, "integration tests write the snapshots they read to testdata/")

// env is a lab pair under test: flat layout, 2000 rows, publisher on CPU 0,
// subscriber on CPU 1, subscription binary and streaming, created disabled.
type env struct {
	t      *testing.T
	p      *lab.Pair
	ctx    context.Context
	major  int
	pubDSN string
	subDSN string
	// standbyDSN, when set, is read as check --standby reads it.
	standbyDSN string
}

// newEnv builds a pair (skipping under -short or without binaries) and
// removes it when the test ends. minMajor > 0 skips older servers.
func newEnv(t *testing.T, minMajor int, tweak func(*lab.PairOptions)) *env {
	t.Helper()
	dir := labtest.Servers(t)
	if dir.Version.Major < minMajor {
		t.Skipf("needs PostgreSQL %d+, found %s in %s: run with LAGSCOPE_PG_BIN=$(bash scripts/get-postgres.sh %d)",
			minMajor, dir.Version, dir.Bin, minMajor)
	}
	o := lab.PairOptions{Bin: dir.Bin, Purpose: "audit " + t.Name(), PubCPUs: []int{0}, SubCPUs: []int{1},
		Rows: 2000, Layout: lab.Flat, Binary: true, Streaming: "on",
		// Reconnect quickly after errors and restarts.
		SubSettings: map[string]string{"wal_retrieve_retry_interval": "'500ms'"}}
	if tweak != nil {
		tweak(&o)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	t.Cleanup(cancel)
	p, err := lab.NewPair(ctx, o)
	if err != nil {
		t.Fatalf("lab pair: %v", err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("close lab pair: %v", err)
		}
	})
	return &env{t: t, p: p, ctx: ctx, major: dir.Version.Major,
		pubDSN: p.Pub.ConnString(lab.Database), subDSN: p.Sub.ConnString(lab.Database)}
}

// exec runs statements on one server as the superuser.
func (e *env) exec(dsn string, stmts ...string) {
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

func (e *env) pub(stmts ...string) { e.t.Helper(); e.exec(e.pubDSN, stmts...) }
func (e *env) sub(stmts ...string) { e.t.Helper(); e.exec(e.subDSN, stmts...) }

// value runs a one-value query.
func (e *env) value(dsn, q string, dest any) {
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

// snap reads both snapshots as the superuser (or with the given DSNs).
func (e *env) snap(dsns ...string) Snapshots {
	e.t.Helper()
	o := Options{Publisher: e.pubDSN, Subscriber: e.subDSN, Standby: e.standbyDSN}
	if len(dsns) == 2 {
		o = Options{Publisher: dsns[0], Subscriber: dsns[1]}
	}
	s, err := Collect(e.ctx, o)
	if err != nil {
		e.t.Fatalf("collect snapshots: %v", err)
	}
	if len(dsns) == 0 && len(s.Publisher.Unreadable)+len(s.Subscriber.Unreadable) > 0 {
		e.t.Fatalf("the superuser could not read: %v %v", s.Publisher.Unreadable, s.Subscriber.Unreadable)
	}
	if s.Standby != nil && len(s.Standby.Unreadable) > 0 {
		e.t.Fatalf("the superuser could not read the standby: %v", s.Standby.Unreadable)
	}
	return s
}

// findings runs every check on a fresh snapshot.
func (e *env) findings() []Finding {
	e.t.Helper()
	var out []Finding
	for _, r := range Run(e.snap(), All) {
		out = append(out, r.Findings...)
	}
	return out
}

// matching returns the findings of check that name object.
func matching(fs []Finding, check, object string) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Check == check && (object == "" || contains(f.Objects, object)) {
			out = append(out, f)
		}
	}
	return out
}

func describeFindings(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "\n  %s %s %v: %s", f.Severity, f.Check, f.Objects, f.Found)
	}
	return b.String()
}

// mustFind waits (up to timeout) for a finding of check naming object and
// returns it.
func (e *env) mustFind(check, object string, timeout time.Duration) Finding {
	e.t.Helper()
	var fs []Finding
	deadline := time.Now().Add(timeout)
	for {
		fs = e.findings()
		if m := matching(fs, check, object); len(m) > 0 {
			e.t.Logf("found %s %s %v: %s", m[0].Severity, check, m[0].Objects, m[0].Found)
			return m[0]
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("no %s finding naming %q; findings:%s", check, object, describeFindings(fs))
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// mustNotFind waits (up to timeout) until no finding of check names object.
func (e *env) mustNotFind(check, object string, timeout time.Duration) {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		fs := e.findings()
		m := matching(fs, check, object)
		if len(m) == 0 {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("%s still reports %q after the fix:%s", check, object, describeFindings(m))
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// eventually polls cond until it holds or timeout passes.
func (e *env) eventually(what string, timeout time.Duration, cond func() bool) {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			e.t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// enable enables the subscriptions and waits for the apply worker.
func (e *env) enable() {
	e.t.Helper()
	if err := e.p.SetEnabled(e.ctx, true); err != nil {
		e.t.Fatal(err)
	}
	e.eventually("the apply worker", 30*time.Second, func() bool {
		var n int
		e.value(e.subDSN, "SELECT count(*) FROM pg_stat_subscription WHERE pid IS NOT NULL AND relid IS NULL", &n)
		return n >= len(e.p.Subscriptions)
	})
}

// disable disables the subscriptions and waits until no worker runs and the
// slots are inactive.
func (e *env) disable() {
	e.t.Helper()
	if err := e.p.SetEnabled(e.ctx, false); err != nil {
		e.t.Fatal(err)
	}
	e.eventually("the subscriptions to stop", 30*time.Second, func() bool {
		var workers, active int
		e.value(e.subDSN, "SELECT count(*) FROM pg_stat_subscription WHERE pid IS NOT NULL", &workers)
		e.value(e.pubDSN, "SELECT count(*) FROM pg_replication_slots WHERE active", &active)
		return workers == 0 && active == 0
	})
}

// caughtUp waits until every slot has confirmed the publisher's current
// position.
func (e *env) caughtUp() {
	e.t.Helper()
	var target int64
	e.value(e.pubDSN, "SELECT ("+lsn.SQL("pg_current_wal_lsn()")+")", &target)
	e.eventually("the subscription to catch up", 60*time.Second, func() bool {
		var behind int
		e.value(e.pubDSN, fmt.Sprintf("SELECT count(*) FROM pg_replication_slots WHERE slot_type = 'logical' AND NOT temporary AND %s < %d",
			lsn.SQL("confirmed_flush_lsn"), target), &behind)
		return behind == 0
	})
}

// restart restarts one server of the pair.
func (e *env) restart(c *cluster.Cluster) {
	e.t.Helper()
	if err := c.Restart(e.ctx); err != nil {
		e.t.Fatalf("restart %s: %v", c.Name, err)
	}
}

// applyPID is the pid of the subscription's apply worker (0 when none).
func (e *env) applyPID() int {
	e.t.Helper()
	var pid int
	e.value(e.subDSN, "SELECT coalesce(max(pid), 0) FROM pg_stat_subscription WHERE relid IS NULL AND subname = 'lab_sub'", &pid)
	return pid
}

// alterSub runs ALTER SUBSCRIPTION statements that restart the apply worker
// and waits for the new worker.
func (e *env) alterSub(stmts ...string) {
	e.t.Helper()
	old := e.applyPID()
	e.sub(stmts...)
	e.eventually("a new apply worker", 30*time.Second, func() bool {
		pid := e.applyPID()
		return pid != 0 && pid != old
	})
}

// refresh adds newly published tables to the subscription (it must be enabled).
func (e *env) refresh(copyData bool) {
	e.t.Helper()
	e.sub(fmt.Sprintf("ALTER SUBSCRIPTION lab_sub REFRESH PUBLICATION WITH (copy_data = %t)", copyData))
}

// save writes snapshots to testdata/name when -record is given.
func (e *env) save(name string, s Snapshots) {
	e.t.Helper()
	if !*record {
		return
	}
	b, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		e.t.Fatal(err)
	}
	path := filepath.Join("testdata", fmt.Sprintf("%s-pg%d.json", name, e.major))
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		e.t.Fatal(err)
	}
	e.t.Logf("recorded %s", path)
}
