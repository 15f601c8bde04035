package diagnose

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lagscope/lagscope/internal/lab/cluster"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/testkit/labtest"
)

// physicalLab starts a primary and its streaming standby (application_name
// "replica1") for a test, with a pg_monitor role "watcher" on both (made on
// the primary, replayed on the standby), and returns the watcher's
// connection strings.
func physicalLab(ctx context.Context, t *testing.T) (primary, standby string) {
	t.Helper()
	dir := labtest.Servers(t)
	owner, err := cluster.DefaultOwner()
	if err != nil {
		t.Fatal(err)
	}
	l, err := cluster.NewLab("", "test "+t.Name(), owner)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	p, err := l.Create(ctx, cluster.Options{Name: "primary", Bin: dir.Bin, CPUs: []int{0}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	s, err := l.Standby(ctx, p, cluster.Options{Name: "replica1", Bin: dir.Bin, CPUs: []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	c, err := pgx.Connect(ctx, p.ConnString("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE ROLE watcher LOGIN IN ROLE pg_monitor"); err != nil {
		t.Fatal(err)
	}
	sc, err := pgx.Connect(ctx, s.ConnString("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close(ctx)
	// The role is replayed once the standby streams: wait until it sees
	// it (a fresh session each time, as lagscope's will be).
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		var n int
		if err := sc.QueryRow(ctx, "SELECT count(*) FROM pg_roles WHERE rolname = 'watcher'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the standby did not replay the role within 30 s; see %s", s.Log())
		}
	}
	as := func(dsn string) string { return strings.Replace(dsn, "user=postgres", "user=watcher", 1) }
	return as(p.ConnString("postgres")), as(s.ConnString("postgres"))
}

// The preflight's errors: a --standby that is not in recovery, a --primary
// that is. (Passes on main: it samples nothing.)
func TestIntegrationPhysicalPreflightSaysWhichServerIsNotWhatItWasGivenAs(t *testing.T) {
	ctx := context.Background()
	primary, standby := physicalLab(ctx, t)
	_, _, err := RunPhysical(ctx, Options{Standby: primary, Duration: 2 * time.Second, Tick: time.Second})
	if err == nil || !strings.Contains(err.Error(), "--standby: the server is not in recovery") {
		t.Errorf("--standby at the primary: %v", err)
	}
	_, _, err = RunPhysical(ctx, Options{Primary: standby, Duration: 2 * time.Second, Tick: time.Second})
	if !errors.Is(err, ErrInRecovery) {
		t.Errorf("--primary at the standby: %v", err)
	}
}

// An idle primary with a caught-up standby: lag 0 s while now() -
// pg_last_xact_replay_timestamp() grows past a minute (issue 40's "must
// show"). Needs the sampler's physical reads (the phys-sample branch).
func TestIntegrationAnIdlePrimarysStandbyIsCaughtUpAtZeroWhileTheReplayTimestampAgesPastAMinute(t *testing.T) {
	ctx := context.Background()
	primary, standby := physicalLab(ctx, t)
	sc, err := pgx.Connect(ctx, standby)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close(ctx)
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(time.Second) {
		var age float64
		if err := sc.QueryRow(ctx, "SELECT extract(epoch FROM now() - pg_last_xact_replay_timestamp())").Scan(&age); err != nil {
			t.Fatal(err)
		}
		if age > 61 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("now() - pg_last_xact_replay_timestamp() reads %.0f s after 2 minutes", age)
		}
	}
	rep, rec, err := RunPhysical(ctx, Options{Primary: primary, Standby: standby, Duration: 5 * time.Second, Tick: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := report.Text(&text, rep); err != nil {
		t.Fatal(err)
	}
	t.Logf("the report:\n%s", text.String())
	if len(rep.Physical) != 1 {
		t.Fatalf("%d physical paths, want the standby's", len(rep.Physical))
	}
	p := rep.Physical[0]
	lag, _ := p.LagTime.Seconds.Get()
	b, known := p.LagBytes.Get()
	t.Logf("%s at %.2f, %d bytes behind, lag %v s: %s", p.Name, p.Confidence, b, lag, p.LagTime.Text)
	if p.Name != model.CaughtUp || !p.LagTime.Seconds.Known() || lag != 0 || !known || b > model.IdleLag || p.Standby != "replica1" {
		t.Errorf("standby %q: %s, lag %v s, %d bytes: want caught-up at 0 s", p.Standby, p.Name, lag, b)
	}
	found := false
	for _, e := range p.Evidence {
		if e.Key == model.EvReplayTimestamp && e.Figures["age_s"] > 60 {
			found = true
		}
	}
	if !found {
		t.Errorf("no evidence that the replay timestamp reads past a minute: %v", model.EvidenceTexts(p.Evidence))
	}
	if s := rec.Ticks[len(rec.Ticks)-1].Read(sample.StandbyNode).Standby; s == nil || s.StartupPID == 0 {
		t.Errorf("the standby's read was not sampled: %+v", s)
	}
}
