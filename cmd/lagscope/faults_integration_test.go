package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/testkit/labpair"
	"github.com/lagscope/lagscope/internal/testkit/labtest"
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
// function it returns; nil when nothing needs undoing), or what breaks at a
// moment inside the window (during, 2 s in, undone when the row ends), and
// what diagnose and the exporter may answer.
type fault struct {
	name   string
	apply  func(t *testing.T, e *faultEnv) (undo func())
	during func(t *testing.T, e *faultEnv) (undo func())
	// target are the servers diagnose is pointed at (nil: the pair's,
	// through lagscope's links).
	target func(e *faultEnv) (pub, sub string)
	// exits are the exit codes allowed; want, text the output must hold.
	exits []int
	want  string
	// shows is what the exporter (watching the pair throughout) must serve
	// while the fault lasts; nil: that it answers.
	shows *metricWant
	// record names the state whose samples the run saves in
	// $LAGSCOPE_RECORD_DIR (as <record>-pg<major>-diag.json), when set.
	record string
	// everyVersion says why the row's outcome depends on the server's
	// version, so that make test runs it on every version it tests (""
	// = it does not: what breaks is a link, a process, a connection limit
	// or a recovery state, which every version answers alike; make test
	// runs the row on one version, LAGSCOPE_TEST_ONCE=1, and skips it
	// where LAGSCOPE_TEST_ONCE=0).
	everyVersion string
}

// onceElsewhere says make test runs the rows whose outcome does not depend
// on the version on another version ($LAGSCOPE_TEST_ONCE=0: scripts/test.sh
// sets it for every version but one; unset, by hand, every row runs).
func onceElsewhere() bool { return os.Getenv("LAGSCOPE_TEST_ONCE") == "0" }

// outcome is what one diagnose run did.
type outcome struct {
	exit   int
	took   time.Duration
	stdout string
	stderr string
}

// TestIntegrationFaultMatrix breaks a lab pair in the ways production
// pairs break, one at a time, and runs diagnose as a pg_monitor role
// against each, while an exporter watches the pair as the same role: no
// panic, no hang past the window and its timeouts, and either a report
// that names what was lost or a one-line error with its documented exit
// code; the exporter keeps answering, shows the fault, and recovers once
// it is undone (docs/reliability.md holds the table this logs).
func TestIntegrationFaultMatrix(t *testing.T) {
	bin := buildLagscope(t)
	p := labpair.Up(t, "caught-up", func(o *lab.PairOptions) { o.Link = true })
	for _, c := range []string{p.Pub.ConnString(lab.Database), p.Sub.ConnString(lab.Database)} {
		exec1(t, c, "CREATE ROLE "+monitorRole+" LOGIN IN ROLE pg_monitor")
	}
	e := newFaultEnv(t, p)
	x := startFaultExporter(t, bin, e)
	x.untilUp(t)
	var table []string
	for _, f := range faults() {
		if f.everyVersion == "" && onceElsewhere() {
			t.Logf("%s: its outcome does not depend on the server's version: make test runs it on one (LAGSCOPE_TEST_ONCE=1)", f.name)
			continue
		}
		t.Run(f.name, func(t *testing.T) {
			if f.apply != nil {
				if undo := f.apply(t, e); undo != nil {
					defer undo()
				}
			}
			pub, sub := e.pubDSN(), e.subDSN()
			if f.target != nil {
				pub, sub = f.target(e)
			}
			var during func()
			if f.during != nil {
				during = func() {
					if undo := f.during(t, e); undo != nil {
						t.Cleanup(undo)
					}
				}
			}
			args := []string{"diagnose", "--publisher", pub, "--subscriber", sub, "--duration", faultWindow.String()}
			if dir := os.Getenv("LAGSCOPE_RECORD_DIR"); dir != "" && f.record != "" {
				name := fmt.Sprintf("%s-pg%d-diag.json", f.record, labtest.Servers(t).Version.Major)
				args = append(args, "--save-samples", filepath.Join(dir, name))
			}
			o := runDiagnose(t, bin, args, during)
			if o.stdout != "" {
				t.Logf("report:\n%s", o.stdout)
			}
			shown := x.check(t, f.shows)
			row := fmt.Sprintf("| %s | %d | %.1f s | %s | %s |", f.name, o.exit, o.took.Seconds(), firstLine(o), shown)
			table = append(table, row)
			t.Log(row)
			checkOutcome(t, f, o)
		})
		if f.name != lastFault {
			// Undone: the subscription streams again, the exporter
			// reaches both servers and steps.
			t.Run(f.name+": the pair and the exporter recover", func(t *testing.T) {
				waitStreaming(t, p.Pub.ConnString(lab.Database), "lab_sub")
				x.untilUp(t)
			})
		}
	}
	x.stop(t)
	t.Logf("fault matrix on PostgreSQL %s:\n%s", labtest.Servers(t).Version, strings.Join(table, "\n"))
}

// lastFault leaves the pair broken (its slot dropped): it comes last.
const lastFault = "slot dropped"

// faults are the matrix's rows, in the order they run.
func faults() []fault {
	up := func(server string, v float64) *metricWant {
		return &metricWant{name: "lagscope_up", labels: map[string]string{"server": server}, value: v}
	}
	verdict := func(v string) *metricWant {
		return &metricWant{name: "lagscope_verdict", labels: map[string]string{"verdict": v}, value: 1}
	}
	return []fault{
		{name: "none (baseline)", exits: []int{0, 1}, want: "lab_sub", shows: up("subscriber", 1),
			everyVersion: "every read of this version's catalog and statistics views must work as a pg_monitor role"},
		{name: "subscription disabled", exits: []int{1}, want: "disabled", shows: verdict("stalled"),
			apply: func(t *testing.T, e *faultEnv) func() {
				exec1(t, e.p.Sub.ConnString(lab.Database), "ALTER SUBSCRIPTION lab_sub DISABLE")
				return func() { exec1(t, e.p.Sub.ConnString(lab.Database), "ALTER SUBSCRIPTION lab_sub ENABLE") }
			}},
		{name: "pg_monitor revoked", exits: []int{2}, want: "pg_monitor", shows: up("publisher", 0),
			everyVersion: "which of this version's reads is refused first, and that its error still names pg_monitor",
			apply: func(t *testing.T, e *faultEnv) func() {
				exec1(t, e.p.Pub.ConnString(lab.Database), "REVOKE pg_monitor FROM "+monitorRole)
				return func() { exec1(t, e.p.Pub.ConnString(lab.Database), "GRANT pg_monitor TO "+monitorRole) }
			}},
		{name: "statement timeout hit (pg_subscription locked on the subscriber)", exits: []int{0, 1, 2}, shows: up("subscriber", 0),
			apply: func(t *testing.T, e *faultEnv) func() {
				return holdOpen(t, e.p.Sub.ConnString(lab.Database), "LOCK TABLE pg_catalog.pg_subscription IN ACCESS EXCLUSIVE MODE")
			}},
		// The exporter keeps the session it had (it may show up 1).
		{name: "max_connections exhausted on the publisher", exits: []int{2}, want: "max_connections",
			apply: func(t *testing.T, e *faultEnv) func() {
				return exhaust(t, e.p.Pub.ConnString(lab.Database)+" user="+monitorRole)
			}},
		{name: "link to the publisher cut inside the window", exits: []int{0, 1}, want: "publisher not sampled", shows: up("publisher", 0),
			during: func(t *testing.T, e *faultEnv) func() { e.pubLink.Cut(); return e.pubLink.Restore }},
		{name: "link to the publisher frozen inside the window (no FIN)", exits: []int{0, 1}, want: "publisher not sampled", shows: up("publisher", 0),
			during: func(t *testing.T, e *faultEnv) func() { e.pubLink.Freeze(); return e.pubLink.Restore }},
		{name: "link to the subscriber frozen inside the window (no FIN)", exits: []int{0, 1}, want: "subscriber not sampled", shows: up("subscriber", 0),
			during: func(t *testing.T, e *faultEnv) func() { e.subLink.Freeze(); return e.subLink.Restore }},
		{name: "replication link cut", exits: []int{1}, want: "stalled", shows: verdict("stalled"),
			apply: func(t *testing.T, e *faultEnv) func() { e.p.Proxy.Cut(); return e.p.Proxy.Restore }},
		{name: "replication link frozen (no FIN)", exits: []int{1}, want: "the replication connection carries nothing", shows: verdict("stalled"), record: "frozen-link",
			apply: func(t *testing.T, e *faultEnv) func() { e.p.Proxy.Freeze(); return e.p.Proxy.Restore }},
		// After the rows that need the load: a restart of the publisher
		// (and the copy a standby is made from) ends it.
		{name: "publisher restarted inside the window", exits: []int{0, 1}, want: "publisher",
			during: func(t *testing.T, e *faultEnv) func() { restart(t, e.p.Pub.Stop, e.p.Pub.StartAgain); return nil }},
		{name: "subscriber restarted inside the window", exits: []int{0, 1}, want: "subscriber",
			during: func(t *testing.T, e *faultEnv) func() { restart(t, e.p.Sub.Stop, e.p.Sub.StartAgain); return nil }},
		{name: "publisher is a standby (in recovery)", exits: []int{2}, want: "in recovery",
			apply:  func(t *testing.T, e *faultEnv) func() { return e.addStandby(t, e.p.Pub) },
			target: func(e *faultEnv) (string, string) { return e.standbyDSN(), e.subDSN() }},
		{name: "subscriber is a standby (in recovery)", exits: []int{2}, want: "in recovery",
			apply:  func(t *testing.T, e *faultEnv) func() { return e.addStandby(t, e.p.Sub) },
			target: func(e *faultEnv) (string, string) { return e.pubDSN(), e.standbyDSN() }},
		{name: lastFault, exits: []int{2}, want: `uses slot "lab_sub", which the publisher does not have`, shows: verdict("stalled"),
			everyVersion: "the slot is looked up in pg_replication_slots, whose columns differ by version (wal_status, inactive_since, invalidation_reason)",
			apply: func(t *testing.T, e *faultEnv) func() {
				exec1(t, e.p.Sub.ConnString(lab.Database), "ALTER SUBSCRIPTION lab_sub DISABLE")
				waitInactive(t, e.p.Pub.ConnString(lab.Database), "lab_sub")
				exec1(t, e.p.Pub.ConnString(lab.Database), "SELECT pg_drop_replication_slot('lab_sub')")
				exec1(t, e.p.Sub.ConnString(lab.Database), "ALTER SUBSCRIPTION lab_sub ENABLE")
				return nil
			}},
	}
}

// runDiagnose runs lagscope with args (diagnose), calling during (when
// not nil) 2 s after it started.
func runDiagnose(t *testing.T, bin string, args []string, during func()) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), faultWindow+faultSlack+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if during != nil {
		time.Sleep(2 * time.Second)
		during()
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
