package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/labtest"
	"github.com/lagscope/lagscope/internal/labtest/labpair"
)

// monitorRole is the role diagnose connects as in the fault matrix: what
// the docs ask for, pg_monitor and nothing else.
const monitorRole = "lagscope_mon"

// faultWindow is diagnose's --duration in the fault matrix; every run must
// end within it plus faultSlack (connect 5 s, statements 2 s, a reconnect).
const (
	faultWindow = 6 * time.Second
	faultSlack  = 20 * time.Second
)

// fault is one row of the fault matrix: what breaks (apply, undone by the
// function it returns; nil when nothing needs undoing), optionally at a
// moment inside the window (during, 2 s in), and what diagnose may answer.
type fault struct {
	name   string
	apply  func(t *testing.T, p *lab.Pair) (undo func())
	during func(t *testing.T, p *lab.Pair)
	// exits are the exit codes allowed; want, text the output must hold.
	exits []int
	want  string
}

// outcome is what one diagnose run did.
type outcome struct {
	exit   int
	took   time.Duration
	stdout string
	stderr string
}

// TestIntegrationFaultMatrix breaks a lab pair in the ways production
// pairs break, one at a time, and runs diagnose as a pg_monitor role
// against each: no panic, no hang past the window and its timeouts, and
// either a report that names what was lost or a one-line error with its
// documented exit code (docs/reliability.md holds the table this logs).
func TestIntegrationFaultMatrix(t *testing.T) {
	bin := buildLagscope(t)
	p := labpair.Up(t, "caught-up")
	ctx := context.Background()
	for _, c := range []string{p.Pub.ConnString(lab.Database), p.Sub.ConnString(lab.Database)} {
		exec1(t, c, "CREATE ROLE "+monitorRole+" LOGIN IN ROLE pg_monitor")
	}
	faults := []fault{
		{name: "none (baseline)", exits: []int{0, 1}, want: "lab_sub"},
		{name: "subscription disabled", exits: []int{1}, want: "disabled",
			apply: func(t *testing.T, p *lab.Pair) func() {
				exec1(t, p.Sub.ConnString(lab.Database), "ALTER SUBSCRIPTION lab_sub DISABLE")
				return func() { exec1(t, p.Sub.ConnString(lab.Database), "ALTER SUBSCRIPTION lab_sub ENABLE") }
			}},
		{name: "pg_monitor revoked", exits: []int{2}, want: "pg_monitor",
			apply: func(t *testing.T, p *lab.Pair) func() {
				exec1(t, p.Pub.ConnString(lab.Database), "REVOKE pg_monitor FROM "+monitorRole)
				return func() { exec1(t, p.Pub.ConnString(lab.Database), "GRANT pg_monitor TO "+monitorRole) }
			}},
		{name: "statement timeout hit (pg_subscription locked on the subscriber)", exits: []int{0, 1, 2}, want: "",
			apply: func(t *testing.T, p *lab.Pair) func() {
				return holdOpen(t, p.Sub.ConnString(lab.Database), "LOCK TABLE pg_catalog.pg_subscription IN ACCESS EXCLUSIVE MODE")
			}},
		{name: "max_connections exhausted on the publisher", exits: []int{2}, want: "max_connections",
			apply: func(t *testing.T, p *lab.Pair) func() {
				return exhaust(t, p.Pub.ConnString(lab.Database)+" user="+monitorRole)
			}},
		{name: "publisher restarted inside the window", exits: []int{0, 1}, want: "publisher",
			during: func(t *testing.T, p *lab.Pair) { restart(t, p.Pub.Stop, p.Pub.StartAgain) }},
		{name: "subscriber restarted inside the window", exits: []int{0, 1}, want: "subscriber",
			during: func(t *testing.T, p *lab.Pair) { restart(t, p.Sub.Stop, p.Sub.StartAgain) }},
		// Last: it leaves the pair without its slot.
		{name: "slot dropped", exits: []int{2}, want: `uses slot "lab_sub", which the publisher does not have`,
			apply: func(t *testing.T, p *lab.Pair) func() {
				exec1(t, p.Sub.ConnString(lab.Database), "ALTER SUBSCRIPTION lab_sub DISABLE")
				waitInactive(t, p.Pub.ConnString(lab.Database), "lab_sub")
				exec1(t, p.Pub.ConnString(lab.Database), "SELECT pg_drop_replication_slot('lab_sub')")
				exec1(t, p.Sub.ConnString(lab.Database), "ALTER SUBSCRIPTION lab_sub ENABLE")
				return nil
			}},
	}
	var table []string
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			if f.apply != nil {
				if undo := f.apply(t, p); undo != nil {
					defer undo()
				}
			}
			o := runDiagnose(ctx, t, bin, p, f.during)
			if f.during != nil {
				t.Logf("report:\n%s", o.stdout)
			}
			row := fmt.Sprintf("| %s | %d | %.1f s | %s |", f.name, o.exit, o.took.Seconds(), firstLine(o))
			table = append(table, row)
			t.Log(row)
			checkOutcome(t, f, o)
		})
	}
	t.Logf("fault matrix on PostgreSQL %s:\n%s", labtest.Servers(t).Version, strings.Join(table, "\n"))
}

// runDiagnose runs diagnose against the pair as monitorRole, calling
// during 2 s into the window.
func runDiagnose(ctx context.Context, t *testing.T, bin string, p *lab.Pair, during func(*testing.T, *lab.Pair)) outcome {
	t.Helper()
	cctx, cancel := context.WithTimeout(ctx, faultWindow+faultSlack+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(cctx, bin, "diagnose",
		"--publisher", p.Pub.ConnString(lab.Database)+" user="+monitorRole,
		"--subscriber", p.Sub.ConnString(lab.Database)+" user="+monitorRole,
		"--duration", faultWindow.String())
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if during != nil {
		time.Sleep(2 * time.Second)
		during(t, p)
	}
	err := cmd.Wait()
	o := outcome{took: time.Since(start), stdout: out.String(), stderr: errOut.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		o.exit = ee.ExitCode()
	case err != nil:
		t.Fatalf("diagnose: %v", err)
	}
	return o
}

func checkOutcome(t *testing.T, f fault, o outcome) {
	t.Helper()
	all := o.stdout + o.stderr
	if strings.Contains(all, "panic:") || strings.Contains(all, "goroutine ") {
		t.Fatalf("diagnose panicked:\n%s", all)
	}
	if o.took > faultWindow+faultSlack {
		t.Errorf("diagnose took %s, want at most the window %s + %s", o.took.Round(100*time.Millisecond), faultWindow, faultSlack)
	}
	ok := false
	for _, e := range f.exits {
		ok = ok || o.exit == e
	}
	if !ok {
		t.Errorf("exit code %d, want one of %v\nstdout:\n%s\nstderr:\n%s", o.exit, f.exits, o.stdout, o.stderr)
	}
	if o.exit >= 2 {
		if lines := strings.Split(strings.TrimSpace(o.stderr), "\n"); len(lines) != 1 || o.stdout != "" {
			t.Errorf("an error must be one line on stderr and nothing on stdout; stderr %q, stdout %q", o.stderr, o.stdout)
		}
	}
	if f.want != "" && !strings.Contains(all, f.want) {
		t.Errorf("output does not name %q:\nstdout:\n%s\nstderr:\n%s", f.want, o.stdout, o.stderr)
	}
}

// firstLine is the line of an outcome for the matrix: the error, or the
// verdict line of the report.
func firstLine(o outcome) string {
	if o.exit >= 2 {
		return strings.TrimSpace(o.stderr)
	}
	for _, l := range strings.Split(o.stdout, "\n") {
		if strings.Contains(l, "VERDICT") {
			return strings.TrimSpace(l)
		}
	}
	return "(no verdict line)"
}

func exec1(t *testing.T, dsn, stmt string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := lab.Exec(ctx, dsn, stmt); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

// holdOpen runs stmt in a transaction it keeps open until the returned
// function ends it.
func holdOpen(t *testing.T, dsn, stmt string) func() {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := c.Begin(ctx)
	if err == nil {
		_, err = tx.Exec(ctx, stmt)
	}
	if err != nil {
		c.Close(ctx)
		t.Fatalf("%s: %v", stmt, err)
	}
	return func() { tx.Rollback(ctx); c.Close(ctx) }
}

// exhaust opens sessions as dsn's role until the server refuses one, and
// returns the function that closes them.
func exhaust(t *testing.T, dsn string) func() {
	t.Helper()
	ctx := context.Background()
	var conns []*pgx.Conn
	closeAll := func() {
		for _, c := range conns {
			c.Close(ctx)
		}
	}
	for range 1000 {
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			if strings.Contains(err.Error(), "too many") || strings.Contains(err.Error(), "remaining connection slots") {
				t.Logf("the server refused session %d: %v", len(conns)+1, err)
				return closeAll
			}
			closeAll()
			t.Fatalf("session %d: %v", len(conns)+1, err)
		}
		conns = append(conns, c)
	}
	closeAll()
	t.Fatal("1000 sessions and the server took them all")
	return nil
}

// restart stops a server and starts it again a second later.
func restart(t *testing.T, stop func() error, start func(context.Context) error) {
	t.Helper()
	if err := stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	time.Sleep(time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := start(ctx); err != nil {
		t.Fatalf("start again: %v", err)
	}
}

// waitInactive waits until slot has no walsender (at most 30 s).
func waitInactive(t *testing.T, dsn, slot string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		active, err := lab.Query[bool](ctx, dsn, "SELECT coalesce(bool_or(active), false) FROM pg_replication_slots WHERE slot_name = '"+slot+"'")
		cancel()
		if err == nil && !active {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("slot %s still active after 30 s", slot)
}
