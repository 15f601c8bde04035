// Package labtest holds what the integration tests share: finding the
// PostgreSQL server binaries and pgbench they start their own clusters with
// (skipping under -short, or with a clear message where none are installed),
// one disposable server for a test, and a writer that sends the lab's
// progress lines to t.Log.
package labtest

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/lab/cluster"
	"github.com/lagscope/lagscope/internal/lab/pgbin"
)

// Servers returns the server binaries ($LAGSCOPE_PG_BIN, pg_config, or the
// newest Debian install) for an integration test. It skips the test under
// -short and when no binaries are installed, saying how to get them.
func Servers(t testing.TB) pgbin.Dir {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: runs without -short")
	}
	dir, err := pgbin.Find(pgbin.FindOptions{})
	if err != nil {
		t.Skipf("no PostgreSQL server binaries (%v): run scripts/install-deps.sh or set LAGSCOPE_PG_BIN", err)
	}
	return dir
}

// Server starts one disposable cluster for a test (skipping like Servers)
// and removes it, with its lab directory, when the test ends.
func Server(ctx context.Context, t testing.TB) *cluster.Cluster {
	t.Helper()
	dir := Servers(t)
	owner, err := cluster.DefaultOwner()
	if err != nil {
		t.Fatal(err)
	}
	l, err := cluster.NewLab("", "test "+t.Name(), owner)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	c, err := l.Create(ctx, cluster.Options{Name: "server", Bin: dir.Bin})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return c
}

// PGBench is Servers plus the pgbench to drive them with (skipping the test
// when there is none).
func PGBench(t testing.TB) (pgbin.Dir, string) {
	t.Helper()
	dir := Servers(t)
	pgbench, err := dir.Tool("pgbench")
	if err != nil {
		t.Skipf("no pgbench: %v", err)
	}
	return dir, pgbench
}

// Log is an io.Writer that logs each write, trimmed, with t.Log, after the
// time since the process started (where a scenario's time goes).
type Log struct{ T testing.TB }

// began is when the test binary started.
var began = time.Now()

func (l Log) Write(p []byte) (int, error) {
	l.T.Logf("%6.1fs %s", time.Since(began).Seconds(), strings.TrimSpace(string(p)))
	return len(p), nil
}

// Once skips a test that does not depend on the server's version unless
// $LAGSCOPE_TEST_ONCE is 1: scripts/test.sh sets it for one version (and
// 0 for the others).
func Once(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: runs without -short")
	}
	if os.Getenv("LAGSCOPE_TEST_ONCE") != "1" {
		t.Skip("runs on one PostgreSQL version: set LAGSCOPE_TEST_ONCE=1")
	}
}
