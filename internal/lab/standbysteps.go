package lab

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/sleep"
)

// SnapshotHolderApp is the application_name of the standby session that
// holds a snapshot replay conflicts with.
const SnapshotHolderApp = "lab-snapshot-holder"

// WithStandby gives the publisher its physical standby (AddStandby).
func WithStandby(o StandbyOptions) Step {
	return Step{Name: "standby", Start: func(ctx context.Context, d *driver) error {
		_, err := d.p.AddStandby(ctx, o, d.o.Log)
		return err
	}}
}

// WarmStandby reads all of hot and its primary key on the standby through
// the index, so that its shared_buffers hold them (a sequential scan of a
// large table would go through a small ring): replay then finds the pages
// it changes in memory.
var WarmStandby = Step{Name: "warm the standby", Start: func(ctx context.Context, d *driver) error {
	fmt.Fprintf(d.o.Log, "lab: reading hot through its index on the standby into its shared_buffers\n")
	return Exec(ctx, d.standby().ConnString(), "SET enable_seqscan = off", "SET enable_bitmapscan = off", "SELECT sum(k) FROM hot WHERE id > 0")
}}

// PauseReplay pauses the standby's replay (pg_wal_replay_pause) until the
// window ends: the WAL it receives piles up unreplayed.
var PauseReplay = Step{Name: "pause replay", Start: func(ctx context.Context, d *driver) error {
	fmt.Fprintf(d.o.Log, "lab: pausing the standby's replay until the window ends\n")
	return d.standby().pause(ctx)
}, Lift: func(p *Pair) { p.physical.resume() }}

// PausedBacklog builds a backlog on the standby: replay paused, the
// 16-client load for share of the window, then stopped (or kept running
// through the window and the catch-up: keep). ReleaseReplay resumes it.
// A load that stops runs pgbench on the standby's CPUs too (the standby
// only receives while paused), so the publisher writes its WAL faster:
// on this VM a pinned publisher writes 11-18 MB/s and replay on a core of
// its own runs at 30-100 MB/s.
func PausedBacklog(share float64, keep bool) Step {
	return Step{Name: "replay backlog", Start: func(ctx context.Context, d *driver) error {
		s := d.standby()
		if err := s.pause(ctx); err != nil {
			return err
		}
		lo := d.lo
		if !keep {
			lo.CPUs = append(append([]int(nil), d.lo.CPUs...), s.Opts.CPUs...)
		}
		s.cycle = &cycleSpec{load: lo, backlog: d.backlogTime(share), keep: keep}
		return d.runBacklog(ctx, lo, share, keep, "building a replay backlog with replay paused")
	}, Lift: func(p *Pair) { p.physical.resume() }}
}

// ReleaseReplay resumes the standby's replay and times its catch-up: from
// now until its replay reaches the publisher's position of now.
var ReleaseReplay = Step{Name: "release replay", Start: func(ctx context.Context, d *driver) error {
	s := d.standby()
	w, err := d.p.release(ctx)
	if err != nil {
		return err
	}
	s.watch = w
	fmt.Fprintf(d.o.Log, "lab: replay released with %s to replay (to %s)\n", formatMB(w.res.BacklogBytes), w.res.Target)
	return nil
}}

// HoldStandbySnapshot has a standby session (SnapshotHolderApp) read hot
// in a REPEATABLE READ transaction it keeps open, then updates and vacuums
// rows of hot on the publisher: replaying the vacuum's cleanup would remove
// row versions the session's snapshot still sees, so replay waits for it
// (max_standby_streaming_delay, forever at -1).
var HoldStandbySnapshot = Step{Name: "hold a snapshot on the standby", Start: func(ctx context.Context, d *driver) error {
	s := d.standby()
	if err := s.holdSnapshot(ctx); err != nil {
		return err
	}
	fmt.Fprintf(d.o.Log, "lab: %s (pid %d) holds a REPEATABLE READ snapshot of hot on the standby; the publisher updates and vacuums hot\n", SnapshotHolderApp, s.Holder.PID)
	return Exec(ctx, d.p.Pub.ConnString(Database), "UPDATE hot SET k = k + 1 WHERE id <= 2000", "VACUUM hot")
}, Lift: func(p *Pair) { p.physical.releaseSnapshot() }}

// SyncStandbyCommits makes the standby the publisher's synchronous standby
// with synchronous_commit = remote_apply: every commit on the publisher
// waits until the standby has replayed it.
var SyncStandbyCommits = Step{Name: "synchronous standby", Start: func(ctx context.Context, d *driver) error {
	fmt.Fprintf(d.o.Log, "lab: the publisher's commits wait for %s to replay them (synchronous_commit = remote_apply)\n", StandbyApp)
	if err := Exec(ctx, d.p.Pub.ConnString(Database),
		"ALTER SYSTEM SET synchronous_standby_names = '"+StandbyApp+"'", "ALTER SYSTEM SET synchronous_commit = 'remote_apply'", "SELECT pg_reload_conf()"); err != nil {
		return fmt.Errorf("publisher: %w", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		state, err := Query[string](ctx, d.p.Pub.ConnString(Database),
			"SELECT coalesce(max(sync_state), '') FROM pg_stat_replication WHERE application_name = '"+StandbyApp+"'")
		if err == nil && state == "sync" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not become synchronous within 30 s (sync_state %q)", StandbyApp, state)
		}
		if err := sleep.For(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}, Lift: func(p *Pair) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	Exec(ctx, p.Pub.ConnString(Database), "ALTER SYSTEM RESET synchronous_standby_names", "ALTER SYSTEM SET synchronous_commit = 'off'", "SELECT pg_reload_conf()")
}}

// EvictStandbyData keeps the standby's table and index files out of the
// page cache (every evictEvery): with a small shared_buffers, replay reads
// the pages it changes from the disk.
var EvictStandbyData = Step{Name: "evict the standby's data", Start: func(ctx context.Context, d *driver) error {
	s := d.standby()
	files, err := Query[string](ctx, s.ConnString(), hotFilesSQL)
	if err != nil {
		return fmt.Errorf("standby: %w", err)
	}
	fmt.Fprintf(d.o.Log, "lab: dropping the standby's table and index files from the page cache every %s until the window ends\n", evictEvery)
	s.evictor = startEvictor(s.DataDir(), strings.Fields(files))
	return nil
}, Lift: func(p *Pair) {
	if p.physical != nil {
		p.physical.evictor.stop()
		p.physical.evictor = nil
	}
}}

// IdleAfterWrite commits one update on the publisher, waits until the
// standby replayed it, then writes nothing for d: the standby is caught up
// while now() - pg_last_xact_replay_timestamp() grows past d.
func IdleAfterWrite(d time.Duration) Step {
	return Step{Name: "idle", Start: func(ctx context.Context, dr *driver) error {
		s := dr.standby()
		if err := Exec(ctx, dr.p.Pub.ConnString(Database), "UPDATE hot SET k = k + 1 WHERE id = 1"); err != nil {
			return fmt.Errorf("publisher: %w", err)
		}
		target, err := Query[lsn.LSN](ctx, dr.p.Pub.ConnString(Database), "SELECT pg_current_wal_lsn()")
		if err != nil {
			return fmt.Errorf("publisher: %w", err)
		}
		if err := s.waitReplayed(ctx, target, time.Minute); err != nil {
			return err
		}
		fmt.Fprintf(dr.o.Log, "lab: the standby replayed the last write; the publisher writes nothing for %s\n", d)
		return sleep.For(ctx, d)
	}}
}

// standby is the pair's physical standby; a step that needs one runs after
// WithStandby (TestScenariosAreCompleteAsData).
func (d *driver) standby() *Standby {
	return d.p.physical
}

// cycleSpec is how a catch-up scenario builds its backlog, for the cycles
// that repeat it (RunOptions.CatchUpCycles).
type cycleSpec struct {
	load    LoadOptions
	backlog time.Duration
	keep    bool
}

func (s *Standby) pause(ctx context.Context) error {
	err := Exec(ctx, s.ConnString(), "SELECT pg_wal_replay_pause()")
	for i := 0; i < 10 && recoveryCancelled(err); i++ {
		err = Exec(ctx, s.ConnString(), "SELECT pg_wal_replay_pause()")
	}
	if err != nil {
		return fmt.Errorf("standby: %w", err)
	}
	s.paused = true
	deadline := time.Now().Add(30 * time.Second)
	for {
		state, err := Query[string](ctx, s.ConnString(), "SELECT pg_get_wal_replay_pause_state()")
		if err == nil && state == "paused" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the standby's replay did not pause within 30 s (state %q, %v)", state, err)
		}
		if err := sleep.For(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
}

// resume resumes a replay the lab paused (on every path out: no context).
func (s *Standby) resume() {
	if s == nil || !s.paused {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if Exec(ctx, s.ConnString(), "SELECT pg_wal_replay_resume()") == nil {
		s.paused = false
	}
}

// waitReplayed waits until the standby replayed target (at most d).
func (s *Standby) waitReplayed(ctx context.Context, target lsn.LSN, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		at, err := Query[lsn.LSN](ctx, s.ConnString(), "SELECT pg_last_wal_replay_lsn()")
		if err == nil && at >= target {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the standby did not replay up to %s within %s (at %s)", target, d, at)
		}
		if err := sleep.For(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
}

// SnapshotHolder is the standby session that holds a snapshot replay
// conflicts with: the conflict's ground truth.
type SnapshotHolder struct {
	PID          int       `json:"pid"`
	BackendStart time.Time `json:"backend_start"`
	App          string    `json:"application_name"`
	conn         *pgx.Conn
}

func (s *Standby) holdSnapshot(ctx context.Context) error {
	if s.Holder != nil {
		return fmt.Errorf("the standby already holds a lab snapshot (pid %d)", s.Holder.PID)
	}
	conn, err := pgx.Connect(ctx, s.ConnString()+" application_name="+SnapshotHolderApp)
	if err != nil {
		return fmt.Errorf("snapshot holder: connect to the standby: %w", err)
	}
	h := &SnapshotHolder{conn: conn, App: SnapshotHolderApp}
	if err := conn.QueryRow(ctx, "SELECT pid, backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()").Scan(&h.PID, &h.BackendStart); err != nil {
		conn.Close(context.Background())
		return fmt.Errorf("snapshot holder: %w", err)
	}
	for _, q := range []string{"BEGIN ISOLATION LEVEL REPEATABLE READ", "SELECT count(*) FROM hot"} {
		if _, err := conn.Exec(ctx, q); err != nil {
			conn.Close(context.Background())
			return fmt.Errorf("snapshot holder: %s: %w", q, err)
		}
	}
	s.Holder = h
	return nil
}

// HoldSnapshot starts the lab's snapshot holder on the standby
// (SnapshotHolderApp, as HoldStandbySnapshot does): a REPEATABLE READ
// transaction that has read hot, kept open until ReleaseSnapshot or
// Close.
func (s *Standby) HoldSnapshot(ctx context.Context) error { return s.holdSnapshot(ctx) }

// ReleaseSnapshot ends the snapshot holder's session: what a cancelled or
// finished conflicting query does for replay.
func (s *Standby) ReleaseSnapshot() { s.releaseSnapshot() }

// releaseSnapshot ends the snapshot holder's transaction and session, if
// any (on every path out: no context).
func (s *Standby) releaseSnapshot() {
	if s == nil || s.Holder == nil || s.Holder.conn == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.Holder.conn.Exec(ctx, "ROLLBACK")
	s.Holder.conn.Close(ctx)
	s.Holder.conn = nil
}

func formatMB(b int64) string { return fmt.Sprintf("%.1f MB", float64(b)/1e6) }
