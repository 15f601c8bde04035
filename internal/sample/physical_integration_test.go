package sample

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/lab/cluster"
	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/pgversion"
	"github.com/lagscope/lagscope/internal/proc"
	"github.com/lagscope/lagscope/internal/testkit/labtest"
)

// TestIntegrationPhysicalPath samples a primary and its streaming standby
// (a physical slot, max_standby_streaming_delay = -1) under pgbench
// updates, as a role that has only pg_monitor, three times: streaming
// (receive and replay advance; the startup process, its CPU from /proc and
// its wait probes; the primary's physical walsender and slot; every source
// read without an error), with replay paused (paused; replay stands still
// while receive advances), and with a REPEATABLE READ transaction on the
// standby whose snapshot the primary's vacuum removes rows from (replay
// waits on the conflict, and the holders name the session).
func TestIntegrationPhysicalPath(t *testing.T) {
	dir, pgbench := labtest.PGBench(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	owner, err := cluster.DefaultOwner()
	if err != nil {
		t.Fatal(err)
	}
	l, err := cluster.NewLab("", "test "+t.Name(), owner)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	primary, err := l.Create(ctx, cluster.Options{Name: "primary", Bin: dir.Bin, CPUs: []int{0}})
	if err != nil {
		t.Fatal(err)
	}
	if err := primary.Start(ctx); err != nil {
		t.Fatal(err)
	}
	exec1 := func(c *cluster.Cluster, stmts ...string) {
		t.Helper()
		conn, err := pgx.Connect(ctx, c.ConnString("postgres"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		for _, s := range stmts {
			if _, err := conn.Exec(ctx, s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
	}
	exec1(primary,
		"CREATE ROLE monitor LOGIN IN ROLE pg_monitor",
		"CREATE ROLE app LOGIN",
		"CREATE TABLE hot (id int PRIMARY KEY, k int NOT NULL DEFAULT 0, pad text)",
		"INSERT INTO hot SELECT i, 0, repeat('x', 100) FROM generate_series(1, 20000) i",
		"GRANT SELECT ON hot TO app",
		"SELECT pg_create_physical_replication_slot('standby1')")
	standby, err := l.Standby(ctx, primary, cluster.Options{Name: "standby", Bin: dir.Bin, CPUs: []int{1}, Settings: map[string]string{
		"primary_slot_name": "'standby1'", "max_standby_streaming_delay": "-1", "hot_standby_feedback": "off",
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := standby.Start(ctx); err != nil {
		t.Fatal(err)
	}
	superStandby, err := pgx.Connect(ctx, standby.ConnString("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer superStandby.Close(context.Background())
	waitFor := func(what string, c *pgx.Conn, q string) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); ; {
			var ok bool
			if err := c.QueryRow(ctx, q).Scan(&ok); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 30 s", what)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitFor("the standby streams", superStandby, "SELECT EXISTS (SELECT FROM pg_stat_wal_receiver WHERE status = 'streaming')")

	// pgbench: one-row updates on the primary's CPU, for the whole test.
	script := filepath.Join(t.TempDir(), "update.sql")
	if err := os.WriteFile(script, []byte("\\set a random(1, 20000)\nUPDATE hot SET k = k + 1 WHERE id = :a;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	load := exec.CommandContext(ctx, pgbench, "-n", "-h", primary.SocketDir, "-p", strconv.Itoa(primary.Port), "-U", cluster.Superuser,
		"-c", "2", "-j", "2", "-R", "2000", "-T", "120", "-f", script, "postgres")
	load.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := load.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { load.Process.Kill(); load.Wait() }()

	fs, err := proc.NewFS("")
	if err != nil {
		t.Fatal(err)
	}
	connect := func(ctx context.Context, side string) (*pg.Conn, error) {
		c := primary
		if side == string(StandbyNode) {
			c = standby
		}
		return pg.Connect(ctx, c.ConnString("postgres")+" user=monitor", side)
	}
	run := func(d time.Duration) *Recording {
		t.Helper()
		rec, err := RunPhysical(ctx, connect, true, true, Options{Duration: d, Proc: fs, NoBurst: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := rec.Validate(); err != nil {
			t.Fatal(err)
		}
		for i, tk := range rec.Ticks {
			if !tk.Read(PrimaryNode).OK || !tk.Read(StandbyNode).OK || tk.Read(StandbyNode).Standby == nil {
				t.Fatalf("tick %d: %+v, want both nodes' reads", i, tk.Reads)
			}
			for _, e := range tk.ReadErrors {
				t.Errorf("tick %d: %s's %s failed as pg_monitor: %s", i, e.Side, e.Source, e.Err)
			}
		}
		return rec
	}
	standbyOf := func(tk Tick) *StandbyRead { return tk.Read(StandbyNode).Standby }

	// Streaming.
	rec := run(4 * time.Second)
	first, last := standbyOf(rec.Ticks[0]), standbyOf(rec.Ticks[len(rec.Ticks)-1])
	t.Logf("streaming: receive %s -> %s, replay %s -> %s, startup %d, receiver %+v, settings %+v, prefetch %+v, io %+v",
		first.Receive, last.Receive, first.Replay, last.Replay, last.StartupPID, last.Receiver, last.Settings, last.Prefetch, last.IO)
	if last.Receive <= first.Receive || last.Replay <= first.Replay {
		t.Errorf("receive %s -> %s, replay %s -> %s: want both to advance", first.Receive, last.Receive, first.Replay, last.Replay)
	}
	if last.StartupPID == 0 || last.PauseState != "not paused" || last.Promoted || last.Receiver == nil ||
		last.Receiver.Status != "streaming" || last.Receiver.Slot != "standby1" || last.Receiver.Flushed == 0 {
		t.Errorf("standby %+v, receiver %+v: want the startup process, not paused, a streaming receiver on standby1", last, last.Receiver)
	}
	if s := last.Settings; s.MaxStreamingDelayMS != -1 || s.MaxArchiveDelayMS != 30000 || s.HotStandbyFeedback || s.ReceiverStatusInterval != 10000 {
		t.Errorf("settings %+v, want max_standby_streaming_delay -1, archive 30 s, no feedback, status every 10 s", s)
	}
	if _, ok := last.Conflicts["snapshot"]; !ok {
		t.Errorf("conflicts %v, want the counters by kind", last.Conflicts)
	}
	if major := rec.Server(StandbyNode).Major; major >= 15 && (last.Prefetch == nil || last.Settings.RecoveryPrefetch == "") || major >= 16 && last.IO == nil {
		t.Errorf("%d: prefetch %+v (%q), io %+v: want each where the version has it", major, last.Prefetch, last.Settings.RecoveryPrefetch, last.IO)
	}
	var startupCPU, walsenders int64
	for _, p := range rec.Ticks[len(rec.Ticks)-1].Procs {
		switch {
		case p.Side == string(StandbyNode) && p.Role == RoleStartup && p.PID == last.StartupPID:
			startupCPU = p.CPUNs
		case p.Side == string(PrimaryNode) && p.Role == RoleWalsender:
			walsenders++
		}
	}
	if startupCPU == 0 || walsenders != 1 {
		t.Errorf("startup process CPU %d ns, primary walsenders in /proc %d: want the startup process's CPU and one walsender", startupCPU, walsenders)
	}
	probed, held := 0, 0
	events := map[string]int{}
	for _, p := range rec.Probes {
		for _, w := range p.Waits {
			if p.Side == string(StandbyNode) && w.PID == last.StartupPID {
				probed++
				events[w.Type+":"+w.Event]++
				if recoveryConflict(pgversion.Version{Major: rec.Server(StandbyNode).Major}, w.Type, w.Event) != "" {
					held++
				}
			}
		}
	}
	t.Logf("streaming: the startup process's waits %v", events)
	// lagscope's own statements on the standby must not hold replay back
	// (a probe batch held its snapshot for a second: schedule.go).
	if held*4 > probed {
		t.Errorf("replay waited on a recovery conflict at %d of %d probes with no query on the standby but lagscope's", held, probed)
	}
	if probed < 10 {
		t.Errorf("the startup process was probed %d times in 4 s, want its wait events sampled", probed)
	}
	prim := rec.Ticks[len(rec.Ticks)-1].Read(PrimaryNode)
	if len(prim.Senders) != 1 || !prim.Senders[0].Physical || prim.Senders[0].Slot != "standby1" || prim.Senders[0].SyncState != "async" ||
		prim.Senders[0].AppName != "standby" || len(prim.PhysicalSlots) != 1 || !prim.PhysicalSlots[0].Active || prim.PhysicalSlots[0].RestartLSN == 0 {
		t.Errorf("primary senders %+v, physical slots %+v: want the standby's physical walsender on slot standby1", prim.Senders, prim.PhysicalSlots)
	}
	// pg_stat_wal (14+, read by the pg_monitor role): the WAL the primary
	// wrote grows between the first tick and the last.
	if first := rec.Ticks[0].Read(PrimaryNode).WAL; prim.WAL == nil || first == nil || prim.WAL.Bytes <= first.Bytes || prim.WAL.Records <= first.Records {
		t.Errorf("primary's WAL counters %+v, first tick %+v: want pg_stat_wal read at each tick, growing", prim.WAL, first)
	}
	if top := rec.Topology(); len(top.Paths) != 1 || top.Paths[0].Source != PrimaryNode {
		t.Errorf("topology %+v, want primary -> standby", top)
	}

	// Paused: replay stands still, receive goes on.
	if _, err := superStandby.Exec(ctx, "SELECT pg_wal_replay_pause()"); err != nil {
		t.Fatal(err)
	}
	pausedQ := "SELECT pg_is_wal_replay_paused()"
	if rec.Server(StandbyNode).Major >= 14 {
		pausedQ = "SELECT pg_get_wal_replay_pause_state() = 'paused'"
	}
	waitFor("replay pauses", superStandby, pausedQ)
	rec = run(3 * time.Second)
	first, last = standbyOf(rec.Ticks[0]), standbyOf(rec.Ticks[len(rec.Ticks)-1])
	t.Logf("paused: receive %s -> %s, replay %s -> %s, %q", first.Receive, last.Receive, first.Replay, last.Replay, last.PauseState)
	if first.PauseState != "paused" || last.PauseState != "paused" || last.Replay != first.Replay || last.Receive <= first.Receive {
		t.Errorf("paused: %q..%q, replay %s -> %s, receive %s -> %s; want paused, replay still, receive advancing",
			first.PauseState, last.PauseState, first.Replay, last.Replay, first.Receive, last.Receive)
	}
	if _, err := superStandby.Exec(ctx, "SELECT pg_wal_replay_resume()"); err != nil {
		t.Fatal(err)
	}

	// A snapshot conflict: a REPEATABLE READ transaction on the standby
	// holds its snapshot while the primary's updates and vacuum remove rows
	// it can see; with max_standby_streaming_delay = -1 replay waits for
	// it without end.
	holder, err := pgx.Connect(ctx, standby.ConnString("postgres")+" user=app application_name=lab-snapshot-holder")
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(context.Background())
	var holderPID int
	if err := holder.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&holderPID); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"BEGIN ISOLATION LEVEL REPEATABLE READ", "SELECT count(*) FROM hot WHERE pad <> 'secret'"} {
		if _, err := holder.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	exec1(primary, "VACUUM hot")
	waitFor("replay waits on the snapshot", superStandby,
		"SELECT EXISTS (SELECT FROM pg_stat_activity WHERE backend_type = 'startup' AND wait_event = 'RecoveryConflictSnapshot')")
	rec = run(3 * time.Second)
	var found *ConflictHolder
	for _, tk := range rec.Ticks {
		for i, h := range standbyOf(tk).Holders {
			if h.PID == holderPID {
				found = &standbyOf(tk).Holders[i]
			}
		}
	}
	conflictProbes := 0
	for _, p := range rec.Probes {
		for _, w := range p.Waits {
			if p.Side == string(StandbyNode) && w.Event == "RecoveryConflictSnapshot" {
				conflictProbes++
			}
		}
	}
	first, last = standbyOf(rec.Ticks[0]), standbyOf(rec.Ticks[len(rec.Ticks)-1])
	t.Logf("conflict: holder %+v, replay %s -> %s, receive %s -> %s, %d probes on the conflict", found, first.Replay, last.Replay, first.Receive, last.Receive, conflictProbes)
	switch {
	case found == nil:
		t.Errorf("no holder with pid %d: %+v", holderPID, last.Holders)
	case found.Holds != holdsSnapshot || found.User != "app" || found.AppName != "lab-snapshot-holder" || found.State != "idle in transaction" ||
		found.XactStart == nil || found.BackendStart == "" || found.Query != "SELECT count(*) FROM hot WHERE pad <> $1":
		t.Errorf("holder %+v, want app's idle transaction holding a snapshot, its query normalised", *found)
	}
	if last.Replay != first.Replay || conflictProbes == 0 {
		t.Errorf("replay %s -> %s with %d probes on the conflict: want replay held", first.Replay, last.Replay, conflictProbes)
	}
	if _, err := holder.Exec(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
}
