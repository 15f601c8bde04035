package diagnose

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/testkit/labtest"
)

// TestIntegrationTheEnableStatementEnablesExactlyThatSubscription creates
// disabled subscriptions whose names are a statement, a capitalised name
// and the names they could be mistaken for, has the classifier advise
// enabling each, runs the printed statement on the server, and checks that
// it enabled exactly that subscription and nothing else ran. Then it has
// the classifier advise ending a lock holder and checks that the printed
// statement ends that backend, and ends nothing for a start time that is
// not the backend's (a pid reused).
func TestIntegrationTheEnableStatementEnablesExactlyThatSubscription(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := labtest.Server(ctx, t)
	c, err := pgx.Connect(ctx, srv.ConnString("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	hostile := []string{"x ENABLE; DROP TABLE users; --", "Orders"}
	decoys := []string{"x", "orders"}
	if _, err := c.Exec(ctx, "CREATE TABLE users (id int)"); err != nil {
		t.Fatal(err)
	}
	for _, name := range append(append([]string{}, hostile...), decoys...) {
		// connect = false: disabled, no slot made; the connection string
		// is never used while it stays disabled.
		var stmt string
		if err := c.QueryRow(ctx, "SELECT format('CREATE SUBSCRIPTION %I CONNECTION %L PUBLICATION p WITH (connect = false)', $1::text, 'host=/nonexistent dbname=none')", name).Scan(&stmt); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	enabled := func(name string) bool {
		var on bool
		if err := c.QueryRow(ctx, "SELECT subenabled FROM pg_subscription WHERE subname = $1", name).Scan(&on); err != nil {
			t.Fatalf("subscription %q: %v", name, err)
		}
		return on
	}
	for _, name := range hostile {
		v := model.Classify(model.Input{Slot: name, Subscription: name, HasSubscriber: true, SlotFound: true})
		if v.Name != model.Stalled || len(v.Helps) == 0 || len(v.Helps[0].Run) != 1 {
			t.Fatalf("%q: verdict %s, helps %+v; want stalled with one statement", name, v.Name, v.Helps)
		}
		stmt := v.Helps[0].Run[0].Text
		t.Logf("printed: %s", stmt)
		if _, err := c.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
		if !enabled(name) {
			t.Errorf("%s did not enable %q", stmt, name)
		}
	}
	for _, d := range decoys {
		if enabled(d) {
			t.Errorf("decoy %q was enabled", d)
		}
	}
	holder, err := pgx.Connect(ctx, srv.ConnString("postgres")+" application_name=holder")
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(context.Background())
	var pid int
	var start string
	if err := holder.QueryRow(ctx, `SELECT pid, to_char(backend_start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') FROM pg_stat_activity WHERE pid = pg_backend_pid()`).Scan(&pid, &start); err != nil {
		t.Fatal(err)
	}
	terminate := func(start string) (bool, string) {
		b := model.Blocker{}
		b.PID, b.BackendStart, b.WaitEvent = pid, start, "relation"
		adv := model.EndBlocker(b)
		if len(adv.Run) != 1 {
			t.Fatalf("advice %+v, want one statement", adv)
		}
		var ended bool
		if err := c.QueryRow(ctx, adv.Run[0].Text).Scan(&ended); err != nil && err != pgx.ErrNoRows {
			t.Fatalf("%s: %v", adv.Run[0].Text, err)
		}
		return ended, adv.Run[0].Text
	}
	other := []byte(start) // one microsecond off: another backend's start
	if d := &other[len(other)-2]; *d == '9' {
		*d = '8'
	} else {
		*d++
	}
	if ended, stmt := terminate(string(other)); ended {
		t.Errorf("%s ended pid %d, whose start time is %s", stmt, pid, start)
	}
	if ended, stmt := terminate(start); !ended {
		t.Errorf("%s did not end pid %d", stmt, pid)
	}
	var users bool
	if err := c.QueryRow(ctx, "SELECT to_regclass('users') IS NOT NULL").Scan(&users); err != nil || !users {
		t.Errorf("table users is gone (%v)", err)
	}
}
