package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/lab/cluster"
	"github.com/lagscope/lagscope/internal/lab/proxy"
)

// faultEnv is the fault matrix's pair, with the links lagscope reaches its
// servers through (so that they can be cut or frozen) and the standby a
// row may add.
type faultEnv struct {
	p                *lab.Pair
	linkDir          string
	pubLink, subLink *proxy.Proxy
	standby          *cluster.Cluster
}

// newFaultEnv starts lagscope's links to p's servers: unix-socket relays
// in a directory of their own, on the servers' port numbers.
func newFaultEnv(t *testing.T, p *lab.Pair) *faultEnv {
	t.Helper()
	dir, err := os.MkdirTemp("", "lagscope-links-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	e := &faultEnv{p: p, linkDir: dir}
	link := func(c *cluster.Cluster) *proxy.Proxy {
		l, err := proxy.Start(context.Background(), proxy.Options{
			Listen:   filepath.Join(dir, fmt.Sprintf(".s.PGSQL.%d", c.Port)),
			Upstream: filepath.Join(c.SocketDir, fmt.Sprintf(".s.PGSQL.%d", c.Port))})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l
	}
	e.pubLink, e.subLink = link(p.Pub), link(p.Sub)
	return e
}

// pubDSN and subDSN reach the pair's servers through lagscope's links as
// monitorRole.
func (e *faultEnv) pubDSN() string { return e.dsn(e.linkDir, e.p.Pub.Port) }
func (e *faultEnv) subDSN() string { return e.dsn(e.linkDir, e.p.Sub.Port) }

// standbyDSN reaches the standby a row added, directly.
func (e *faultEnv) standbyDSN() string { return e.dsn(e.standby.SocketDir, e.standby.Port) }

func (e *faultEnv) dsn(host string, port int) string {
	return fmt.Sprintf("host=%s port=%d dbname=%s user=%s", host, port, lab.Database, monitorRole)
}

// addStandby makes a physical standby of primary (pinned to the
// publisher's CPUs), starts it, and returns the function that stops it.
func (e *faultEnv) addStandby(t *testing.T, primary *cluster.Cluster) func() {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sb, err := e.p.Lab.Standby(ctx, primary, cluster.Options{Name: primary.Name + "-standby", Bin: e.p.Opts.Bin, CPUs: e.p.Opts.PubCPUs})
	if err != nil {
		t.Fatalf("standby of the %s: %v", primary.Name, err)
	}
	if err := sb.Start(ctx); err != nil {
		t.Fatalf("start the %s's standby: %v", primary.Name, err)
	}
	e.standby = sb
	return func() { sb.Stop() }
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

// waitStreaming waits until a walsender streams slot (at most 60 s: an
// apply worker that failed starts again after wal_retrieve_retry_interval).
func waitStreaming(t *testing.T, dsn, slot string) {
	t.Helper()
	start := time.Now()
	for time.Since(start) < time.Minute {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		n, err := lab.Query[int](ctx, dsn, "SELECT count(*)::int FROM pg_stat_replication r JOIN pg_replication_slots s ON s.active_pid = r.pid WHERE s.slot_name = '"+slot+"' AND r.state = 'streaming'")
		cancel()
		if err == nil && n > 0 {
			t.Logf("slot %s streams after %.1f s", slot, time.Since(start).Seconds())
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("no walsender streams slot %s after 60 s", slot)
}
