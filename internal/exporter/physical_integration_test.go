package exporter

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"go.yaml.in/yaml/v3"

	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/lab/cluster"
	"github.com/lagscope/lagscope/internal/monitor"
	"github.com/lagscope/lagscope/internal/testkit/labtest"
)

// alertExpr is the expression of alert name in docs/prometheus/alerts.yml.
func alertExpr(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../../docs/prometheus/alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Groups []struct {
			Rules []struct {
				Alert string `yaml:"alert"`
				Expr  string `yaml:"expr"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			if r.Alert == name {
				return r.Expr
			}
		}
	}
	t.Fatalf("no alert %s in alerts.yml", name)
	return ""
}

// TestIntegrationAPausedStandbysBacklogMakesTheStuckAlertTrueAndAnIdleOnesDoesNot
// starts a primary with two streaming standbys, pauses replay on one,
// writes about 20 MB of WAL and lets the primary go idle: the paused
// standby holds it received and not replayed, the other has replayed it
// all. An exporter watches each (primary and standby) and a Prometheus
// loading docs/prometheus/alerts.yml scrapes it: LagscopeStandbyReplayStuck's
// expression is true for the paused standby (the alert pending), with
// replay_paused 1 and the catch-up forecast +Inf, and never for the idle
// one, whose lag is 0.
func TestIntegrationAPausedStandbysBacklogMakesTheStuckAlertTrueAndAnIdleOnesDoesNot(t *testing.T) {
	labtest.Once(t)
	ctx := context.Background()
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
	var standbys []*cluster.Cluster
	for i, name := range []string{"paused_replica", "idle_replica"} {
		s, err := l.Standby(ctx, p, cluster.Options{Name: name, Bin: dir.Bin, CPUs: []int{1 - i%2}})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Start(ctx); err != nil {
			t.Fatal(err)
		}
		standbys = append(standbys, s)
	}
	exec := func(c *cluster.Cluster, sql string) {
		t.Helper()
		conn, err := pgx.Connect(ctx, c.ConnString("postgres"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s on %s: %v", sql, c.Name, err)
		}
	}
	waitFor(t, 30*time.Second, "both standbys streaming", func() (bool, string) {
		conn, err := pgx.Connect(ctx, p.ConnString("postgres"))
		if err != nil {
			return false, err.Error()
		}
		defer conn.Close(ctx)
		var n int
		err = conn.QueryRow(ctx, "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'").Scan(&n)
		return err == nil && n == 2, fmt.Sprintf("%d streaming (%v)", n, err)
	})
	exec(standbys[0], "SELECT pg_wal_replay_pause()")
	exec(p, "CREATE TABLE backlog AS SELECT g, repeat('x', 100) AS pad FROM generate_series(1, 150000) g")

	pair := func(name string, s *cluster.Cluster) monitor.Options {
		o := monitor.Options{Pair: name, Window: 10 * time.Second, Step: 5 * time.Second,
			Diagnose: diagnose.Options{Primary: p.ConnString("postgres"), Standby: s.ConnString("postgres"), ProbeHz: 20, Tick: time.Second}}
		if err := o.Validate(); err != nil {
			t.Fatal(err)
		}
		return o
	}
	addr := startExporter(t, pair("paused", standbys[0]), pair("idle", standbys[1]))
	rules, err := filepath.Abs("../../docs/prometheus/alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	base := startPrometheus(t, addr, rules)

	stuck := alertExpr(t, "LagscopeStandbyReplayStuck")
	waitFor(t, 60*time.Second, "the stuck expression true for the paused standby", func() (bool, string) {
		s := query(t, base, stuck)
		return len(s) == 1 && s[0].labels["pair"] == "paused" && s[0].labels["standby"] != "",
			fmt.Sprint(s, query(t, base, `lagscope_lag_bytes{part="received_not_replayed"}`), query(t, base, `lagscope_standby_wal_bytes_per_second{position="replayed"}`))
	})
	waitFor(t, 20*time.Second, "the alert pending for the paused standby", func() (bool, string) {
		s := query(t, base, `ALERTS{alertname="LagscopeStandbyReplayStuck"}`)
		return len(s) == 1 && s[0].labels["pair"] == "paused", fmt.Sprint(s)
	})
	// The idle standby: watched all along, its lag 0 and the expression
	// never true for it.
	at := time.Now()
	for _, c := range []struct{ expr, want string }{
		{`lagscope_standby_replay_lag_bytes{pair="idle"}`, "0"},
		{`lagscope_standby_catch_up_seconds{pair="idle"}`, "0"},
		{`lagscope_verdict{pair="idle",verdict="caught-up"}`, "1"},
		{`lagscope_standby_replay_paused{pair="paused"}`, "1"},
		{`lagscope_standby_catch_up_seconds{pair="paused"}`, "+Inf"},
		{`lagscope_verdict{pair="paused",verdict="replay-paused"}`, "1"},
	} {
		s := queryAt(t, base, c.expr, at)
		if len(s) != 1 || s[0].value != c.want {
			t.Errorf("%s = %v, want one series at %s", c.expr, s, c.want)
		}
	}
	// Every second since Prometheus started, through the range API (a
	// subquery of the same expression once came back empty in CI although
	// the instant query and the rule had it true: asked again, not failed
	// on one empty answer).
	var since []series
	waitFor(t, 15*time.Second, "the stuck expression's history", func() (bool, string) {
		since = queryRange(t, base, stuck, started, time.Now(), time.Second)
		return len(since) > 0, "no series"
	})
	if len(since) != 1 || since[0].labels["pair"] != "paused" {
		t.Errorf("the stuck expression was true for %v since the start, want the paused standby alone", since)
	}
	// The dashboard's physical standby panels have data.
	for _, q := range dashboardQueries(t) {
		if strings.Contains(q, "lagscope_standby_") {
			if s := query(t, base, q); len(s) < 2 {
				t.Errorf("dashboard query %s: %d series, want both standbys'", q, len(s))
			}
		}
	}
	checkExposition(t, addr, "lagscope_standby_replay_lag_bytes", "lagscope_standby_catch_up_seconds", "lagscope_standby_replay_paused",
		"lagscope_standby_wal_bytes_per_second", "lagscope_standby_conflict_cancels_total")
}
