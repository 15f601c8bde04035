package diagnose

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/testkit/labpair"
	"github.com/lagscope/lagscope/internal/testkit/labtest"
)

func TestIntegrationAPgMonitorRoleIsEnoughOnBothSides(t *testing.T) {
	p := labpair.Up(t, "walsender-starved")
	ctx := context.Background()
	for _, dsn := range []string{p.Pub.ConnString(lab.Database), p.Sub.ConnString(lab.Database)} {
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Exec(ctx, "CREATE ROLE watcher LOGIN IN ROLE pg_monitor"); err != nil {
			t.Fatal(err)
		}
		c.Close(ctx)
	}
	pub := strings.Replace(p.Pub.ConnString(lab.Database), "user=postgres", "user=watcher", 1)
	sub := strings.Replace(p.Sub.ConnString(lab.Database), "user=postgres", "user=watcher", 1)
	counts := newSessionCounts(t, p.Pub.ConnString(lab.Database), p.Sub.ConnString(lab.Database))
	rep, rec, err := Run(ctx, Options{Publisher: pub, Subscriber: sub, Duration: 8 * time.Second, ProbeHz: 20, Tick: time.Second})
	if err != nil {
		t.Fatalf("diagnose as a pg_monitor role: %v", err)
	}
	// One session per server for the whole run: preflight, window and
	// setup read (each new one costs the server ~20 ms of CPU to start).
	if got := counts.since(t); got[0] != 1 || got[1] != 1 {
		t.Errorf("diagnose opened %d session(s) on the publisher and %d on the subscriber, want 1 each", got[0], got[1])
	}
	if rec.SetupError != "" || len(rec.Setup) == 0 {
		t.Errorf("the setup was not read on the kept sessions: %q", rec.SetupError)
	}
	if rec.Server(sample.PublisherNode).CPUs <= 0 || rec.Server(sample.SubscriberNode) == nil || rec.Server(sample.SubscriberNode).CPUs <= 0 {
		t.Errorf("the hosts' CPUs were not recorded: publisher %d, subscriber %+v", rec.Server(sample.PublisherNode).CPUs, rec.Server(sample.SubscriberNode))
	}
	if len(rep.Paths) != 1 || rep.Paths[0].Name != model.WalsenderStarved {
		t.Fatalf("paths = %+v, want one walsender-starved verdict", rep.Paths)
	}
	if rep.Publisher.ProcUnavailable != "" || rep.Subscriber.ProcUnavailable != "" {
		t.Errorf("/proc figures missing: %q / %q", rep.Publisher.ProcUnavailable, rep.Subscriber.ProcUnavailable)
	}
	// What the apply worker did shows in the subscriber's counters, read as
	// that role: the updates on hot (pg_stat_user_tables) on every version,
	// and on 18 the worker's own WAL and buffer I/O.
	path := rep.Paths[0]
	var hot int64
	for _, w := range path.Tables {
		if w.Name == "hot" {
			hot = w.Updated
		}
	}
	t.Logf("on %s the apply worker updated %d rows of hot; its WAL %d bytes, its I/O %+v", rep.Subscriber.Version, hot, path.ApplyWALBytes, path.ApplyIO)
	if hot <= 0 {
		t.Errorf("pg_stat_user_tables: no update of hot in the window (tables %+v)", path.Tables)
	}
	if labtest.Servers(t).Version.Major >= 18 && (path.ApplyWALBytes <= 0 || path.ApplyIO == nil || path.ApplyIO.Hits <= 0) {
		t.Errorf("18: the apply worker's WAL (%d bytes) or buffer I/O (%+v) not read", path.ApplyWALBytes, path.ApplyIO)
	}
	// A role without pg_monitor cannot see wait events: a clear error, not a wrong verdict.
	c, _ := pgx.Connect(ctx, p.Pub.ConnString(lab.Database))
	c.Exec(ctx, "CREATE ROLE nobody_special LOGIN")
	c.Close(ctx)
	plain := strings.Replace(p.Pub.ConnString(lab.Database), "user=postgres", "user=nobody_special", 1)
	_, _, err = Run(ctx, Options{Publisher: plain, Duration: 3 * time.Second, ProbeHz: 20, Tick: time.Second})
	if err == nil || !strings.Contains(err.Error(), "pg_monitor") {
		t.Errorf("plain role: err = %v, want one that names pg_monitor", err)
	}
}

func TestIntegrationASubscriberRestartDuringSamplingIsAGapNotAFailure(t *testing.T) {
	p := labpair.Up(t, "walsender-starved")
	ctx := context.Background()
	go func() {
		time.Sleep(3 * time.Second)
		if err := p.Sub.Restart(ctx); err != nil {
			t.Errorf("restart subscriber: %v", err)
		}
	}()
	rep, rec, err := Run(ctx, Options{Publisher: p.Pub.ConnString(lab.Database), Subscriber: p.Sub.ConnString(lab.Database),
		Duration: 14 * time.Second, ProbeHz: 20, Tick: time.Second})
	if err != nil {
		t.Fatalf("diagnose across a restart: %v", err)
	}
	if len(rec.Gaps) == 0 || len(rep.Gaps) == 0 {
		t.Errorf("no gap recorded for the restart: %+v", rec.Gaps)
	}
	if len(rep.Paths) != 1 || rep.Paths[0].Name != model.WalsenderStarved {
		t.Errorf("verdict %+v, want walsender-starved despite the gap", rep.Paths)
	}
}

// sessionCounts reads pg_stat_database.sessions (the sessions established
// to the lab database, regular backends only) on each server, from
// sessions of its own opened before the first reading.
type sessionCounts struct {
	conns  []*pgx.Conn
	before []int64
}

func newSessionCounts(t *testing.T, dsns ...string) *sessionCounts {
	t.Helper()
	sc := &sessionCounts{}
	for _, dsn := range dsns {
		c, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		sc.conns = append(sc.conns, c)
	}
	sc.before = sc.read(t)
	return sc
}

func (sc *sessionCounts) read(t *testing.T) []int64 {
	t.Helper()
	out := make([]int64, len(sc.conns))
	for i, c := range sc.conns {
		if err := c.QueryRow(context.Background(), "SELECT sessions FROM pg_stat_database WHERE datname = current_database()").Scan(&out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// since is each server's sessions established since the first reading,
// once those that ended have been counted (a backend counts its session
// as it exits, after lagscope closed it): it waits until every server
// counts one at least, or 5 s, then a moment more for late ones.
func (sc *sessionCounts) since(t *testing.T) []int64 {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		now := sc.read(t)
		all := true
		for i := range now {
			now[i] -= sc.before[i]
			all = all && now[i] >= 1
		}
		if all || time.Now().After(deadline) {
			time.Sleep(500 * time.Millisecond)
			now = sc.read(t)
			for i := range now {
				now[i] -= sc.before[i]
			}
			return now
		}
		time.Sleep(100 * time.Millisecond)
	}
}
