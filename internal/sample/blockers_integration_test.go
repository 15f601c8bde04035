package sample

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/testkit/labtest"
)

// TestIntegrationBlockersNameTheLockHolder holds LOCK TABLE in one session,
// makes another session's statement wait for it, and checks that
// readBlockers, run as a role that has only pg_monitor, names the holder
// (pid, application_name, state, query) for the waiter, and nothing for a
// backend that does not wait.
func TestIntegrationBlockersNameTheLockHolder(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := labtest.Server(ctx, t)
	connect := func(extra string) *pgx.Conn {
		t.Helper()
		conn, err := pgx.Connect(ctx, c.ConnString("postgres")+extra)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close(context.Background()) })
		return conn
	}
	admin := connect("")
	for _, s := range []string{
		"CREATE TABLE t (id int)",
		"CREATE ROLE monitor LOGIN IN ROLE pg_monitor",
		"CREATE ROLE app LOGIN PASSWORD 'secret'", // the holder: another, unprivileged user
		"GRANT ALL ON t TO app",
	} {
		if _, err := admin.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	holder := connect(" user=app application_name=lab-lock-holder")
	var holderPID int
	if err := holder.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&holderPID); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"BEGIN", "LOCK TABLE t IN SHARE MODE", "SELECT 1 /* password 'x' */"} {
		if _, err := holder.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	waiter := connect("")
	var waiterPID int32
	if err := waiter.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&waiterPID); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() {
		_, err := waiter.Exec(ctx, "INSERT INTO t VALUES (1)")
		waited <- err
	}()
	idle := connect("")
	var idlePID int32
	if err := idle.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&idlePID); err != nil {
		t.Fatal(err)
	}

	obs, err := pg.Connect(ctx, c.ConnString("postgres")+" user=monitor", Subscriber)
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Close()
	var got []Blocker
	for deadline := time.Now().Add(10 * time.Second); len(got) == 0 && time.Now().Before(deadline); {
		if got, err = readBlockers(ctx, obs, []int32{waiterPID, idlePID}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("blockers: %+v", got)
	if len(got) != 1 {
		t.Fatalf("%d blockers, want 1 (the holder of the lock, for the waiter only)", len(got))
	}
	b := got[0]
	if b.WaiterPID != int(waiterPID) || b.WaitEvent != "relation" || b.PID != holderPID || b.AppName != "lab-lock-holder" ||
		b.User != "app" || b.BackendType != "client backend" || b.State != "idle in transaction" || b.XactAgeS <= 0 {
		t.Errorf("blocker %+v, want waiter %d on relation, holder %d lab-lock-holder (app, client backend, idle in transaction, open transaction)", b, waiterPID, holderPID)
	}
	if want := "SELECT 1 /* password '***' */"; b.Query != want {
		t.Errorf("query %q, want %q", b.Query, want)
	}
	// backend_start names the holder: the guarded terminate's condition
	// (pid = ... AND backend_start = '<it>') matches it, and only it.
	var match int
	if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE pid = $1 AND backend_start = $2::text::timestamptz", b.PID, b.BackendStart).Scan(&match); err != nil || match != 1 {
		t.Errorf("backend_start %q matches %d backends with pid %d (%v), want the holder", b.BackendStart, match, b.PID, err)
	}

	if _, err := holder.Exec(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	if err := <-waited; err != nil {
		t.Fatal(err)
	}
	if got, err = readBlockers(ctx, obs, []int32{waiterPID, idlePID}); err != nil || len(got) != 0 {
		t.Errorf("after the commit: %+v, %v; want no blockers", got, err)
	}
}
