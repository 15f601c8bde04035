package lab

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/proc"
	"github.com/lagscope/lagscope/internal/sleep"
)

// StandbyResult is the lab's own measurement of its physical standby over
// the window: the ground truth of a physical scenario, read from the
// servers' positions, pg_stat_activity and /proc, never from lagscope's
// rules.
type StandbyResult struct {
	// GeneratedMBps is the advance of the publisher's pg_current_wal_lsn,
	// ReceivedMBps of the standby's pg_last_wal_receive_lsn, ReplayedMBps
	// of its pg_last_wal_replay_lsn (MB = 1e6 bytes, per s).
	GeneratedMBps float64 `json:"generated_mb_per_s"`
	ReceivedMBps  float64 `json:"received_mb_per_s"`
	ReplayedMBps  float64 `json:"replayed_mb_per_s"`
	// ReplayBacklog... is the publisher's position minus the standby's
	// replay position at the window's first and last tick, bytes;
	// ReceiveBacklogEnd the same for its receive position.
	ReplayBacklogStart int64 `json:"replay_backlog_start"`
	ReplayBacklogEnd   int64 `json:"replay_backlog_end"`
	ReceiveBacklogEnd  int64 `json:"receive_backlog_end"`
	// PausedShare is the share of ticks whose pg_get_wal_replay_pause_state
	// was "paused".
	PausedShare float64 `json:"paused_share"`
	// ReplayAgeS is now() - pg_last_xact_replay_timestamp() on the standby
	// at the last tick (-1 = null: nothing replayed yet).
	ReplayAgeS float64 `json:"replay_age_s"`
	// SyncState is the standby's sync_state in the publisher's
	// pg_stat_replication at the last tick.
	SyncState string `json:"sync_state"`
	// Startup is the startup process: its CPU and run-queue shares (/proc)
	// over the ticks that began with replay behind by more than
	// behindBytes, its wait events over the probes taken after such a
	// tick (all ticks and probes when none was).
	Startup measure.Proc `json:"startup"`
	// BehindS is the time those ticks cover.
	BehindS float64 `json:"behind_s"`
	// Clients are the wait events of the load's sessions on the publisher
	// (pgbench's), share of probes ("CPU" for none).
	Clients measure.Proc `json:"clients"`
	// Holder is the standby session the lab made hold a snapshot (nil =
	// none), and HolderAlive whether it was still there at the end.
	Holder      *SnapshotHolder `json:"snapshot_holder,omitempty"`
	HolderAlive bool            `json:"snapshot_holder_alive,omitempty"`
	// Cascade is the standby's standby at the last tick (nil = none).
	Cascade *CascadeResult `json:"cascade,omitempty"`
	// Link is what the standby's link carried over the window.
	Link *LinkResult `json:"link,omitempty"`
	// CatchUps are the timed catch-ups: the release in the scenario's
	// steps, then one per further cycle (RunOptions.CatchUpCycles).
	CatchUps []CatchUp `json:"catch_ups,omitempty"`
}

// CascadeResult places the cascade against the publisher and the standby.
type CascadeResult struct {
	// BehindPrimary is the publisher's position minus the cascade's
	// replay position, BehindStandby the standby's receive position minus
	// it, bytes, at the last tick.
	BehindPrimary int64   `json:"behind_primary"`
	BehindStandby int64   `json:"behind_standby"`
	ReplayedMBps  float64 `json:"replayed_mb_per_s"`
}

// behindBytes is how far behind replay must be for a tick to count as
// replaying a backlog.
const behindBytes = 1 << 20

// physTick is one tick of the physical measurement.
type physTick struct {
	at                    time.Time
	current, recv, replay lsn.LSN
	cascade               lsn.LSN
	paused                bool
	replayAge             float64
	syncState             string
	startup               int
	cpu                   proc.ProcSample
	cpuOK                 bool
}

// measureStandby samples the publisher and its standby every o.Tick for
// o.Duration and probes the startup process's and the load's wait events
// at o.ProbeHz.
func (p *Pair) measureStandby(ctx context.Context, o RunOptions) (*StandbyResult, error) {
	s := p.physical
	fs, err := proc.NewFS("")
	if err != nil {
		return nil, err
	}
	pub, err := pgx.Connect(ctx, p.Pub.ConnString(Database))
	if err != nil {
		return nil, fmt.Errorf("connect to the publisher: %w", err)
	}
	defer pub.Close(context.Background())
	sb, err := openStandby(ctx, s.ConnString())
	if err != nil {
		return nil, fmt.Errorf("connect to the standby: %w", err)
	}
	defer sb.close()
	var cas *standbyConn
	if s.Cascade != nil {
		if cas, err = openStandby(ctx, s.CascadeConnString()); err != nil {
			return nil, fmt.Errorf("connect to the cascade: %w", err)
		}
		defer cas.close()
	}
	pctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	pr := &probes{startup: map[string]int{}, behind: map[string]int{}, clients: map[string]int{}}
	var probeErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		probeErr = p.probeWaits(pctx, o.ProbeHz, pr)
	}()
	var linkStart linkSnap
	if s.link != nil {
		linkStart = linkSnap{at: time.Now(), bytes: s.link.Stats().Downstream}
	}
	var ticks []physTick
	end := time.Now().Add(o.Duration)
	for {
		t, err := readPhysTick(ctx, pub, sb, cas, fs)
		if err != nil {
			stop()
			wg.Wait()
			return nil, err
		}
		ticks = append(ticks, t)
		pr.isBehind.Store(t.current.Sub(t.replay) > behindBytes)
		if time.Now().Add(o.Tick).After(end) {
			break
		}
		if err := sleepUntil(ctx, t.at.Add(o.Tick)); err != nil {
			stop()
			wg.Wait()
			return nil, err
		}
	}
	stop()
	wg.Wait()
	if probeErr != nil && ctx.Err() == nil {
		return nil, probeErr
	}
	r := summariseStandby(ticks)
	// The startup process's waits while replay was behind, like its CPU
	// (all probes when it never was).
	r.Startup.WaitShares, r.Startup.Probes = shares(pr.startup, pr.nStartup), pr.nStartup
	if pr.nBehind > 0 {
		r.Startup.WaitShares, r.Startup.Probes = shares(pr.behind, pr.nBehind), pr.nBehind
	}
	r.Clients.WaitShares, r.Clients.Probes = shares(pr.clients, pr.nClients), pr.nClients
	if s.link != nil {
		r.Link = linkResult(linkStart, linkSnap{at: time.Now(), bytes: s.link.Stats().Downstream}, s.Opts.LinkRate)
	}
	if s.Holder != nil {
		r.Holder = s.Holder
		n, err := Query[int64](ctx, s.ConnString(), fmt.Sprintf("SELECT count(*) FROM pg_stat_activity WHERE pid = %d", s.Holder.PID))
		r.HolderAlive = err == nil && n == 1
	}
	return r, nil
}

func sleepUntil(ctx context.Context, t time.Time) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Until(t)):
		return nil
	}
}

// readPhysTick reads the publisher first, so no standby position is ahead
// of the publisher's in the tick.
func readPhysTick(ctx context.Context, pub *pgx.Conn, sb, cas *standbyConn, fs proc.FS) (physTick, error) {
	t := physTick{at: time.Now()}
	if err := pub.QueryRow(ctx, `SELECT pg_current_wal_lsn(), coalesce((SELECT max(sync_state) FROM pg_stat_replication WHERE application_name = $1), '')`, StandbyApp).
		Scan(&t.current, &t.syncState); err != nil {
		return t, fmt.Errorf("publisher: %w", err)
	}
	var recv, replay *lsn.LSN
	var startup *int
	if err := sb.query(ctx, `SELECT pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn(), pg_get_wal_replay_pause_state() = 'paused',
coalesce(extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8, -1),
(SELECT pid FROM pg_stat_activity WHERE backend_type = 'startup')`, &recv, &replay, &t.paused, &t.replayAge, &startup); err != nil {
		return t, fmt.Errorf("standby: %w", err)
	}
	if recv != nil {
		t.recv = *recv
	}
	if replay != nil {
		t.replay = *replay
	}
	t.recv = max(t.recv, t.replay)
	if cas != nil {
		if err := cas.query(ctx, "SELECT coalesce(pg_last_wal_replay_lsn(), '0/0')", &t.cascade); err != nil {
			return t, fmt.Errorf("cascade: %w", err)
		}
	}
	if startup != nil {
		t.startup = *startup
		if ps, err := fs.Process(t.startup); err == nil {
			t.cpu, t.cpuOK = ps, true
		}
	}
	return t, nil
}

// probes counts the wait events probed: the startup process's, those of
// them taken while the last tick had replay behind, the load's sessions'.
type probes struct {
	isBehind                    atomic.Bool
	startup, behind, clients    map[string]int
	nStartup, nBehind, nClients int
}

// maxLostProbeSessions is how many standby sessions in a row the probe
// may lose to the server before it gives up.
const maxLostProbeSessions = 20

// connectStandby opens a session on a standby, again when the standby
// cancels its start for a recovery conflict (its catalog reads meet the
// replay of a backlog older than max_standby_streaming_delay).
func connectStandby(ctx context.Context, dsn string) (*pgx.Conn, error) {
	for try := 1; ; try++ {
		c, err := pgx.Connect(ctx, dsn)
		if err == nil || !recoveryCancelled(err) || try == maxLostProbeSessions {
			return c, err
		}
		if err := sleep.For(ctx, 50*time.Millisecond); err != nil {
			return nil, err
		}
	}
}

// probeWaits reads the wait events of the standby's startup process and
// of the load's sessions on the publisher at hz until ctx ends.
func (p *Pair) probeWaits(ctx context.Context, hz float64, pr *probes) error {
	pub, err := pgx.Connect(ctx, p.Pub.ConnString(Database))
	if err != nil {
		return fmt.Errorf("probe: connect to the publisher: %w", err)
	}
	defer pub.Close(context.Background())
	sb, err := connectStandby(ctx, p.physical.ConnString())
	if err != nil {
		return fmt.Errorf("probe: connect to the standby: %w", err)
	}
	defer func() { sb.Close(context.Background()) }()
	every := time.Duration(float64(time.Second) / hz)
	lost := 0 // standby sessions ended by the server in a row
	for ctx.Err() == nil {
		at := time.Now()
		behind := pr.isBehind.Load()
		for _, x := range []struct {
			conn  *pgx.Conn
			where string
			into  map[string]int
			n     *int
		}{{sb, "backend_type = 'startup'", pr.startup, &pr.nStartup}, {pub, "application_name = 'pgbench'", pr.clients, &pr.nClients}} {
			var evs []string
			err := queryStandby(ctx, x.conn, "SELECT coalesce(array_agg(coalesce(wait_event, 'CPU')), '{}') FROM pg_stat_activity WHERE "+x.where, &evs)
			if recoveryCancelled(err) {
				continue // a probe lost to recovery
			}
			if err != nil && x.conn == sb && sb.IsClosed() && ctx.Err() == nil && lost < maxLostProbeSessions {
				// The standby ended the session (a recovery conflict
				// terminates it, FATAL, when replay of a backlog older
				// than max_standby_streaming_delay meets it): the probe
				// is lost, a new session takes the next.
				lost++
				if sb, err = connectStandby(ctx, p.physical.ConnString()); err != nil {
					return fmt.Errorf("probe: connect to the standby again: %w", err)
				}
				continue
			}
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("probe: %w", err)
			}
			if x.conn == sb {
				lost = 0
			}
			for _, ev := range evs {
				x.into[ev]++
				*x.n++
				if behind && x.conn == sb {
					pr.behind[ev]++
					pr.nBehind++
				}
			}
		}
		if sleepUntil(ctx, at.Add(every)) != nil {
			return nil
		}
	}
	return nil
}

func shares(counts map[string]int, n int) map[string]float64 {
	out := map[string]float64{}
	for ev, c := range counts {
		out[ev] = float64(c) / float64(max(n, 1))
	}
	return out
}

// summariseStandby turns the ticks into rates, backlogs and the startup
// process's CPU.
func summariseStandby(ticks []physTick) *StandbyResult {
	r := &StandbyResult{ReplayAgeS: -1, Startup: measure.Proc{CPUShare: -1, RunqueueShare: -1}}
	if len(ticks) == 0 {
		return r
	}
	first, last := ticks[0], ticks[len(ticks)-1]
	r.ReplayBacklogStart = first.current.Sub(first.replay)
	r.ReplayBacklogEnd = last.current.Sub(last.replay)
	r.ReceiveBacklogEnd = last.current.Sub(last.recv)
	r.ReplayAgeS, r.SyncState = last.replayAge, last.syncState
	paused := 0
	for _, t := range ticks {
		if t.paused {
			paused++
		}
	}
	r.PausedShare = float64(paused) / float64(len(ticks))
	if sec := last.at.Sub(first.at).Seconds(); sec > 0 {
		r.GeneratedMBps = float64(last.current.Sub(first.current)) / sec / 1e6
		r.ReceivedMBps = float64(last.recv.Sub(first.recv)) / sec / 1e6
		r.ReplayedMBps = float64(last.replay.Sub(first.replay)) / sec / 1e6
		if first.cascade != 0 {
			r.Cascade = &CascadeResult{BehindPrimary: last.current.Sub(last.cascade), BehindStandby: last.recv.Sub(last.cascade),
				ReplayedMBps: float64(last.cascade.Sub(first.cascade)) / sec / 1e6}
		}
	}
	// The startup process's CPU over the ticks that began behind (all
	// ticks when none did).
	pairs := func(behindOnly bool) (cpu, runq, wall float64) {
		for i := 1; i < len(ticks); i++ {
			a, b := ticks[i-1], ticks[i]
			if !a.cpuOK || !b.cpuOK || a.startup != b.startup || (behindOnly && a.current.Sub(a.replay) <= behindBytes) {
				continue
			}
			w := b.at.Sub(a.at)
			c, q := proc.Share(a.cpu, b.cpu, w)
			cpu += c * w.Seconds()
			runq += q * w.Seconds()
			wall += w.Seconds()
		}
		return cpu, runq, wall
	}
	cpu, runq, wall := pairs(true)
	if wall == 0 {
		cpu, runq, wall = pairs(false)
	} else {
		r.BehindS = wall
	}
	if wall > 0 {
		r.Startup.CPUShare, r.Startup.RunqueueShare, r.Startup.Count = cpu/wall, runq/wall, 1
	}
	return r
}

// measurePhysical measures a physical scenario's window: the standby's
// measurement, with the publisher's WAL rate as the result's generated
// rate.
func (p *Pair) measurePhysical(ctx context.Context, s Recipe, o RunOptions) (*Result, error) {
	start := time.Now()
	sr, err := p.measureStandby(ctx, o)
	if err != nil {
		return nil, err
	}
	version, err := Query[string](ctx, p.Pub.ConnString(Database), "SHOW server_version")
	if err != nil {
		return nil, fmt.Errorf("publisher: %w", err)
	}
	return &Result{Version: ResultVersion, Scenario: s.Name, Layout: string(s.Layout), ServerVersion: version, Rows: o.Pair.Rows,
		PubCPUs: proc.FormatCPUList(o.Pair.PubCPUs), SubCPUs: proc.FormatCPUList(p.physical.Opts.CPUs),
		WindowS: time.Since(start).Seconds(), GeneratedMBps: sr.GeneratedMBps, HostBusy: -1, Standby: sr}, nil
}

// keepsLoadThroughCatchUp says the scenario released its catch-up with
// its load still running (PausedBacklog's keep).
func (p *Pair) keepsLoadThroughCatchUp() bool {
	s := p.physical
	return s != nil && s.watch != nil && s.cycle != nil && s.cycle.keep
}

// timeCatchUps waits for the catch-up released in the scenario's steps,
// if any, calls stopLoad, then times o.CatchUpCycles-1 more, each from a
// backlog built as the scenario built its own.
func (p *Pair) timeCatchUps(ctx context.Context, res *Result, o RunOptions, stopLoad func()) error {
	s := p.physical
	if s == nil || s.watch == nil || res.Standby == nil {
		stopLoad()
		return nil
	}
	c, err := s.watch.wait(ctx)
	stopLoad()
	if err != nil {
		return fmt.Errorf("time the catch-up: %w", err)
	}
	logCatchUp(o, 1, c)
	res.Standby.CatchUps = append(res.Standby.CatchUps, c)
	for i := 2; i <= o.CatchUpCycles && s.cycle != nil; i++ {
		if c, err = p.catchUpCycle(ctx, o.Log); err != nil {
			return fmt.Errorf("catch-up cycle %d: %w", i, err)
		}
		logCatchUp(o, i, c)
		res.Standby.CatchUps = append(res.Standby.CatchUps, c)
	}
	return nil
}

func logCatchUp(o RunOptions, i int, c CatchUp) {
	fmt.Fprintf(o.Log, "lab: catch-up %d: %s in %.1f s (replay %.1f MB/s, WAL %.1f MB/s; at the start %.1f and %.1f MB/s); within reach of the moving position after %.1f s\n",
		i, formatMB(c.BacklogBytes), c.Seconds, c.ReplayMBps, c.WALMBps, c.ReplayMBpsAtStart, c.WALMBpsAtStart, c.CaughtUpSeconds)
}

// queryStandby runs a one-row query on a standby again when recovery
// cancelled it (SQLSTATE 40001: replay conflicted with its snapshot, as
// any query's on a standby replaying a backlog whose WAL arrived more than
// max_standby_streaming_delay ago), up to 10 times.
func queryStandby(ctx context.Context, conn *pgx.Conn, q string, dest ...any) error {
	var err error
	for range 10 {
		if err = conn.QueryRow(ctx, q).Scan(dest...); !recoveryCancelled(err) {
			return err
		}
	}
	return err
}

// standbyConn is a lab session on a standby that opens itself again when
// the standby ends it (a recovery conflict terminates a session, FATAL,
// while replay of WAL older than max_standby_streaming_delay meets it).
type standbyConn struct {
	dsn  string
	conn *pgx.Conn
}

// openStandby opens a standbyConn.
func openStandby(ctx context.Context, dsn string) (*standbyConn, error) {
	c, err := connectStandby(ctx, dsn)
	if err != nil {
		return nil, err
	}
	return &standbyConn{dsn: dsn, conn: c}, nil
}

// query runs a one-row query (queryStandby), in a new session when the
// standby ended the last, maxLostProbeSessions times at most.
func (s *standbyConn) query(ctx context.Context, q string, dest ...any) error {
	for lost := 0; ; lost++ {
		err := queryStandby(ctx, s.conn, q, dest...)
		if err == nil || !s.conn.IsClosed() || ctx.Err() != nil || lost == maxLostProbeSessions {
			return err
		}
		c, cerr := connectStandby(ctx, s.dsn)
		if cerr != nil {
			return fmt.Errorf("%w; connecting again: %w", err, cerr)
		}
		s.conn = c
	}
}

// close ends the session.
func (s *standbyConn) close() {
	if s != nil {
		s.conn.Close(context.Background())
	}
}

// recoveryCancelled says err is a query cancelled by a recovery conflict.
func recoveryCancelled(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "40001"
}
