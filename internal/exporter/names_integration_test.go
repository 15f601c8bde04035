package exporter

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/monitor"
	"github.com/lagscope/lagscope/internal/testkit/labtest"
)

// TestIntegrationANonUTF8SubscriptionNameLeavesEveryOtherPairServed
// watches two pairs on one server: "odd", whose subscriber database is
// SQL_ASCII and holds a subscription named "odd" + byte 0xff (any byte is
// a character there; Prometheus takes only UTF-8), and "plain", an
// ordinary one. Every scrape answers 200 with both pairs' series, the odd
// name escaped (`odd\xff`), and the exposition passes promtool.
func TestIntegrationANonUTF8SubscriptionNameLeavesEveryOtherPairServed(t *testing.T) {
	labtest.Once(t)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := labtest.Server(ctx, t)
	exec := func(db string, stmts ...string) {
		t.Helper()
		if err := lab.Exec(ctx, c.ConnString(db), stmts...); err != nil {
			t.Fatalf("%s: %v", db, err)
		}
	}
	exec("postgres", "CREATE DATABASE pubdb", "CREATE DATABASE plain",
		"CREATE DATABASE ascii ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0")
	exec("pubdb", "CREATE TABLE t (id int PRIMARY KEY)", "CREATE PUBLICATION pub FOR TABLE t",
		"SELECT pg_create_logical_replication_slot('odd_slot', 'pgoutput')",
		"SELECT pg_create_logical_replication_slot('plain_slot', 'pgoutput')")
	// The subscriptions connect to pubdb on the same server: their slots
	// are made above (create_slot = false), as CREATE SUBSCRIPTION would
	// wait on itself making one. The name is built on the server: the
	// client's UTF-8 could not carry it.
	for _, s := range []struct{ db, name, slot string }{
		{"ascii", `convert_from('\x6f6464ff'::bytea, 'SQL_ASCII')`, "odd_slot"},
		{"plain", `'plain_sub'`, "plain_slot"},
	} {
		conn, err := pgx.Connect(ctx, c.ConnString(s.db))
		if err != nil {
			t.Fatal(err)
		}
		_, err = conn.Exec(ctx, "SELECT set_config('lagscope_test.conn', $1, false), set_config('lagscope_test.slot', $2, false)", c.ConnString("pubdb"), s.slot)
		if err == nil {
			_, err = conn.Exec(ctx, "CREATE TABLE t (id int PRIMARY KEY)")
		}
		if err == nil {
			_, err = conn.Exec(ctx, "DO $$ BEGIN EXECUTE format('CREATE SUBSCRIPTION %I CONNECTION %L PUBLICATION pub WITH (slot_name = %I, create_slot = false, copy_data = false)', "+
				s.name+", current_setting('lagscope_test.conn'), current_setting('lagscope_test.slot')); END $$")
		}
		conn.Close(ctx)
		if err != nil {
			t.Fatalf("subscription in %s: %v", s.db, err)
		}
	}
	pair := func(name, subdb string) monitor.Options {
		o := monitor.Options{Pair: name, Window: 4 * time.Second, Step: 2 * time.Second,
			Diagnose: diagnose.Options{Publisher: c.ConnString("pubdb"), Subscriber: c.ConnString(subdb), ProbeHz: 20, Tick: time.Second}}
		if err := o.Validate(); err != nil {
			t.Fatal(err)
		}
		return o
	}
	addr := startExporter(t, pair("odd", "ascii"), pair("plain", "plain"))
	t.Logf("server and subscriptions ready in %.1f s", time.Since(start).Seconds())

	// Every scrape answers 200 and parses, from the first; both pairs'
	// paths are served once each has made a step.
	want := []struct{ pair, slot, sub string }{{"odd", "odd_slot", `odd\xff`}, {"plain", "plain_slot", "plain_sub"}}
	var last string
	waitFor(t, 45*time.Second, "both pairs' verdicts with their subscriptions", func() (bool, string) {
		status, mfs, err := scrapeFamilies(addr)
		if err != nil || status != http.StatusOK {
			t.Fatalf("scrape: status %d, %v", status, err)
		}
		found := 0
		last = ""
		for _, w := range want {
			n := 0
			if mf := mfs["lagscope_verdict"]; mf != nil {
				for _, m := range mf.Metric {
					if matches(m, map[string]string{"pair": w.pair, "slot": w.slot, "subscription": w.sub}) && value(m) == 1 {
						n++
					}
				}
			}
			last += fmt.Sprintf("%s: %d verdict(s) at 1; ", w.pair, n)
			if n == 1 {
				found++
			}
		}
		return found == len(want), last
	})
	t.Logf("both pairs served: %s", last)
	for _, w := range want {
		if v, ok := scrape(t, addr, "lagscope_up", map[string]string{"pair": w.pair, "server": "subscriber"}); !ok || v != 1 {
			t.Errorf("lagscope_up{pair=%s,server=subscriber} = %g (present %v), want 1", w.pair, v, ok)
		}
	}
	// Every series of the odd pair names its subscription the same way.
	_, mfs, err := scrapeFamilies(addr)
	if err != nil {
		t.Fatal(err)
	}
	for name, mf := range mfs {
		for _, m := range mf.Metric {
			l := map[string]string{}
			for _, lp := range m.Label {
				l[lp.GetName()] = lp.GetValue()
			}
			if sub := l["subscription"]; l["pair"] == "odd" && sub != "" && sub != `odd\xff` {
				t.Errorf("%s%v: subscription %q, want odd\\xff", name, l, sub)
			}
		}
	}
	checkExposition(t, addr, "lagscope_verdict", "lagscope_up")
	t.Logf("took %.1f s", time.Since(start).Seconds())
}

// scrapeFamilies reads the exporter's /metrics: its status and families.
func scrapeFamilies(addr string) (int, map[string]*dto.MetricFamily, error) {
	r, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return 0, nil, err
	}
	defer r.Body.Close()
	if r.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(r.Body)
		return r.StatusCode, nil, fmt.Errorf("%s", strings.TrimSpace(string(b)))
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(r.Body)
	return r.StatusCode, mfs, err
}
