package sample

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/sleep"
)

// Side names used in recordings.
const (
	Publisher  = "publisher"
	Subscriber = "subscriber"
)

// Connector opens an observing session to one side ("publisher" or "subscriber").
type Connector func(ctx context.Context, side string) (*pg.Conn, error)

// Options control one sampling run.
type Options struct {
	// Duration is how long to sample (required).
	Duration time.Duration
	// Tick is the interval of position/counter/CPU reads (0 = 1 s).
	Tick time.Duration
	// ProbeHz is the wait-event probe rate per side (0 = 20).
	ProbeHz float64
	// Proc reads this host's /proc; nil disables process figures.
	Proc ProcReader
	// Subscriber says whether a subscriber is observed as well.
	Subscriber bool
	// Until, if set, ends sampling early once it returns true for a tick
	// (the lab stops when the backlog has drained).
	Until func(Tick) bool
	// OnTick, if set, is called with each tick as it is read (before
	// Until), from the tick loop's goroutine: it must not block long, or
	// the next tick is late (the monitor's live positions).
	OnTick func(Tick)
	// NoWaitSampling probes wait events with lagscope's own statements even
	// where pg_wait_sampling's history could be read.
	NoWaitSampling bool
	// NoBurst leaves out the CPU bursts (see cpuburst.go): the lab's own
	// measurement has /proc, and its bursts would stretch those of a
	// diagnose run against the same servers.
	NoBurst bool
	// AlwaysBurst runs the CPU bursts on a side with /proc figures as well
	// (by default they run only where /proc is not read): recordings that
	// calibrate the burst against the run queue need both.
	AlwaysBurst bool
	// Release, if set, receives each side's session at the end of a run
	// in which it stayed healthy, instead of closing it: the monitor keeps
	// its sessions from step to step. A session that failed is closed.
	Release func(side string, c *pg.Conn)
}

func (o *Options) defaults() {
	if o.Tick <= 0 {
		o.Tick = time.Second
	}
	if o.ProbeHz <= 0 {
		o.ProbeHz = 20
	}
}

// ErrNoWaitVisibility means the role cannot see other sessions' wait events.
var ErrNoWaitVisibility = errors.New("this role cannot see wait events: grant it pg_monitor (GRANT pg_monitor TO <role>)")

// session is one side's connection, shared by the tick loop (positions
// once a tick) and the probe loop (wait events in batches that end just
// before each tick): a second session per server cost ~20 ms of server CPU
// to start, 0.2% of a core over a 10 s window (docs/performance.md).
type session struct {
	name    string
	connect Connector
	connMu  sync.Mutex // held while a statement runs on conn
	conn    *pg.Conn
	mu      sync.Mutex // guards pids and ticked
	pids    []int32    // backends to probe, set by the tick loop
	ticked  int        // index of the last tick read on this side (-1: none yet)
	gapFrom time.Time  // start of an open gap, under connMu
	gapErr  string
	// history: read wait events from pg_wait_sampling's history, the
	// newest sample read so far being at histSince (server time).
	history   bool
	histSince time.Time
	// walDir is the publisher's pg_wal (data_directory/pg_wal), read at the
	// first tick of a publisher on this host (walDisk).
	walDir string
	// parent is Run's context: a tick's statements end with it (Ctrl-C)
	// or their own timeout, not with the window, so that a read still
	// running when the window ends does not cut the session (pgx closes a
	// connection whose statement is cancelled) and the monitor can keep it.
	parent context.Context
}

// walDisk reads the space of the file system holding pg_wal, noting a
// failed read on the tick.
func (s *session) walDisk(ctx context.Context, tk *Tick) *DiskStat {
	if s.walDir == "" {
		dir, err := bestEffort(ctx, func(ctx context.Context) (string, error) { return walDir(ctx, s.conn) })
		if err != nil {
			tk.noteReadError(s.name, SourceWALDisk, err)
			return nil
		}
		s.walDir = dir
	}
	d, err := readWALDisk(s.walDir)
	tk.noteReadError(s.name, SourceWALDisk, err)
	return d
}

// Run samples until o.Duration passes, ctx is cancelled or o.Until says so.
// A cancelled ctx ends sampling early without an error.
func Run(ctx context.Context, connect Connector, o Options) (*Recording, error) {
	o.defaults()
	sides := []*session{{name: Publisher, connect: connect, ticked: -1, parent: ctx}}
	if o.Subscriber {
		sides = append(sides, &session{name: Subscriber, connect: connect, ticked: -1, parent: ctx})
	}
	rec := &Recording{Version: RecordingVersion}
	for _, s := range sides {
		srv, err := s.open(ctx, o)
		if err != nil {
			closeAll(sides)
			return nil, err
		}
		switch {
		case o.Proc == nil:
			srv.ProcUnavailable = NoProcCause
		case !s.conn.Local:
			srv.ProcUnavailable = "server is not on this host (connected over the network)"
		}
		if s.name == Publisher {
			rec.Publisher = srv
		} else {
			rec.Subscriber = &srv
		}
	}
	defer release(ctx, sides, o.Release)

	rec.Start = time.Now()
	end := rec.Start.Add(o.Duration)
	runCtx, cancel := context.WithDeadline(ctx, end)
	defer cancel()

	var wg sync.WaitGroup
	probes := make([][]Probe, len(sides))
	for i, s := range sides {
		wg.Add(1)
		go func() {
			defer wg.Done()
			probes[i] = probeLoop(runCtx, s, o, rec.Start, end)
		}()
	}
	tickLoop(runCtx, cancel, sides, rec, o)
	cancel()
	wg.Wait()
	for _, p := range probes {
		rec.Probes = append(rec.Probes, p...)
	}
	rec.End = time.Now()
	for _, s := range sides {
		if g, ok := s.closeGap(rec.End); ok {
			rec.Gaps = append(rec.Gaps, g)
		}
	}
	markProcVisibility(rec, o)
	return rec, nil
}

// open opens the side's session and checks what it can see, within
// pg.SetupTimeout after connecting (a frozen path would otherwise hold it
// for ever; Connect bounds itself).
func (s *session) open(ctx context.Context, o Options) (Server, error) {
	var err error
	if s.conn, err = s.connect(ctx, s.name); err != nil {
		return Server{}, err
	}
	ctx, cancel := pg.WithAnswerTimeout(ctx, pg.SetupTimeout)
	defer cancel()
	ok, err := checkVisibility(ctx, s.conn)
	if err != nil {
		return Server{}, &SideError{Side: s.name, Err: fmt.Errorf("check the role's privileges: %w", pg.Unanswered(ctx, err))}
	}
	if !ok {
		return Server{}, &SideError{Side: s.name, Err: ErrNoWaitVisibility}
	}
	srv := Server{Version: s.conn.Version.String(), Major: s.conn.Version.Major}
	if !o.NoWaitSampling && hasWaitSampling(ctx, s.conn) {
		s.history, srv.WaitSource = true, WaitSampling
	}
	return srv, nil
}

// SideError is a failure of one side's session before the window, after
// it connected.
type SideError struct {
	Side string // Publisher or Subscriber
	Err  error
}

func (e *SideError) Error() string { return e.Side + ": " + e.Err.Error() }
func (e *SideError) Unwrap() error { return e.Err }

// tickLoop reads both sides at rec.Start + k*o.Tick, k = 0, 1, ...
func tickLoop(ctx context.Context, stop func(), sides []*session, rec *Recording, o Options) {
	for k := 0; ; k++ {
		if err := sleep.For(ctx, time.Until(rec.Start.Add(time.Duration(k)*o.Tick))); err != nil {
			return
		}
		tk := Tick{At: time.Now()}
		for _, s := range sides {
			ok := s.read(ctx, &tk, k, rec, o)
			s.mu.Lock()
			s.ticked = k
			s.mu.Unlock()
			if s.name == Publisher {
				tk.PubOK = ok
			} else {
				tk.SubOK = ok
			}
		}
		rec.Ticks = append(rec.Ticks, tk)
		if o.OnTick != nil {
			o.OnTick(tk)
		}
		if o.Until != nil && o.Until(tk) {
			stop()
			return
		}
	}
}

// read does tick k on one side, reconnecting after a failure. It reports
// whether the side answered.
func (s *session) read(ctx context.Context, tk *Tick, k int, rec *Recording, o Options) bool {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	// The positions (one round trip) and a reconnect answer within
	// pg.ReadTimeout; the best-effort reads after them get their own.
	runCtx, stmt := ctx, ctx
	if s.parent != nil {
		stmt = s.parent
	}
	ctx, cancel := pg.WithAnswerTimeout(stmt, pg.ReadTimeout)
	defer cancel()
	if s.conn == nil {
		c, err := s.connect(ctx, s.name)
		if err != nil {
			if runCtx.Err() == nil {
				s.openGap(tk.At, gapCause(ctx, err))
			}
			return false
		}
		s.conn = c
	}
	var keys map[int]procKey
	var err error
	if s.name == Publisher {
		keys, err = readPublisher(ctx, s.conn, tk)
	} else {
		keys, err = readSubscriber(ctx, s.conn, tk)
		if err == nil {
			// Best effort: a failed read of lock blockers or COPY
			// progress (a timeout of pg_blocking_pids) leaves those out
			// of this tick instead of losing the tick, and the tick says so;
			// a broken connection fails the next tick's reads.
			var err error
			tk.Blockers, err = bestEffort(stmt, func(ctx context.Context) ([]Blocker, error) {
				return readBlockers(ctx, s.conn, pidList(keys))
			})
			tk.noteReadError(s.name, SourceBlockers, err)
			tk.Copies, err = bestEffort(stmt, func(ctx context.Context) ([]CopyProgress, error) {
				return readCopyProgress(ctx, s.conn, syncPIDs(keys))
			})
			tk.noteReadError(s.name, SourceCopyProgress, err)
			tk.Applied, err = bestEffort(stmt, func(ctx context.Context) (*ApplyWork, error) {
				return readApplyWork(ctx, s.conn, applyPIDs(keys))
			})
			tk.noteReadError(s.name, SourceApplyWork, err)
		}
	}
	if err != nil {
		if runCtx.Err() != nil {
			return false
		}
		s.openGap(tk.At, gapCause(ctx, err))
		s.conn.Close()
		s.conn = nil
		s.setPIDs(nil)
		return false
	}
	if g, ok := s.closeGap(tk.At); ok {
		rec.Gaps = append(rec.Gaps, g)
	}
	s.setPIDs(pidList(keys))
	procRead := false
	if o.Proc != nil && s.conn.Local {
		ps := readProcs(o.Proc, s.name, keys)
		procRead = len(ps) > 0
		tk.Procs = append(tk.Procs, ps...)
		if s.name == Publisher {
			tk.PubHost = readHost(o.Proc)
			// Beside /proc, walsender or not: a disabled subscription's
			// slot, the one that fills the disk, has none.
			tk.PubWALDisk = s.walDisk(stmt, tk)
		} else {
			tk.SubHost = readHost(o.Proc)
		}
	}
	// After the positions and /proc, so that those stay on the tick.
	// Bursts stand in for /proc: only on a side without its figures at this
	// tick (a remote server, --no-proc, processes /proc cannot see), unless
	// asked for beside them (calibration: the lab's recordings).
	if !o.NoBurst && (!procRead || o.AlwaysBurst) && k%burstEvery == 0 {
		// Best effort, as above: a failed burst leaves this tick without one.
		ms, err := bestEffort(stmt, func(ctx context.Context) ([]float64, error) { return readBurst(ctx, s.conn) })
		tk.noteReadError(s.name, SourceCPUBurst, err)
		if err == nil {
			if s.name == Publisher {
				tk.PubBurst = ms
			} else {
				tk.SubBurst = ms
			}
		}
	}
	return true
}

// bestEffort runs read within pg.ReadTimeout of ctx; its error reads as
// pg.NoAnswer when that timeout cut it.
func bestEffort[T any](ctx context.Context, read func(context.Context) (T, error)) (T, error) {
	rctx, cancel := pg.WithAnswerTimeout(ctx, pg.ReadTimeout)
	defer cancel()
	v, err := read(rctx)
	return v, pg.Unanswered(rctx, err)
}

// noteReadError records a failed best-effort read of side's source (nil
// err: nothing to note; the run's own end is not a failure).
func (t *Tick) noteReadError(side, source string, err error) {
	if err == nil || errors.Is(err, context.Canceled) {
		return
	}
	t.ReadErrors = append(t.ReadErrors, ReadError{Side: side, Source: source, Err: pg.Redact(err.Error())})
}

// gapCause is the redacted cause of a failed read: pg.NoAnswer when the
// read's own timeout cut it.
func gapCause(ctx context.Context, err error) string {
	return pg.Redact(pg.Unanswered(ctx, err).Error())
}

// pidList returns the backends' pids.
func pidList(keys map[int]procKey) []int32 {
	pids := make([]int32, 0, len(keys))
	for pid := range keys {
		pids = append(pids, int32(pid))
	}
	return pids
}

// openGap starts the side's gap at at, for cause, unless one is open: a
// gap runs from the first read that failed.
func (s *session) openGap(at time.Time, cause string) {
	if s.gapFrom.IsZero() {
		s.gapFrom, s.gapErr = at, cause
	}
}

// closeGap ends the side's open gap at to (the next tick that answered,
// or the run's end); ok is false when no gap is open.
func (s *session) closeGap(to time.Time) (g Gap, ok bool) {
	if s.gapFrom.IsZero() {
		return Gap{}, false
	}
	g = Gap{Side: s.name, From: s.gapFrom, To: to, Cause: s.gapErr}
	s.gapFrom, s.gapErr = time.Time{}, ""
	return g, true
}

func (s *session) setPIDs(p []int32) {
	s.mu.Lock()
	s.pids = p
	s.mu.Unlock()
}

// state returns the backends to probe and the index of the last tick read.
func (s *session) state() ([]int32, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pids, s.ticked
}

// tickMargin is how long before a tick a probe batch ends, so that the
// tick finds the shared connection free.
const tickMargin = 25 * time.Millisecond

// probeLoop reads wait events of the side's replication processes every
// 1/o.ProbeHz until ctx ends, a batch of instants per statement (see
// readWaitBatch). Each batch starts after the side's latest tick and its
// last instant falls at least tickMargin before the next tick (ticks fall
// at start + k*o.Tick) and before end; a batch under way when ctx ends
// early (Until) finishes, so its probes are kept.
func probeLoop(ctx context.Context, s *session, o Options, start, end time.Time) []Probe {
	var out []Probe
	interval := time.Duration(float64(time.Second) / o.ProbeHz)
	var due time.Time // when the next instant is due
	for ctx.Err() == nil {
		pids, ticked := s.state()
		now := time.Now()
		b := nextBatch(now, start, end, due, ticked, o.Tick, interval, len(pids) > 0)
		if b.n == 0 {
			if err := sleep.For(ctx, min(interval, 5*time.Millisecond)); err != nil {
				break
			}
			continue
		}
		if s.history {
			// One read of the extension's history a tick, just before
			// the tick: what its collector sampled since the last read.
			if b.stop.Sub(now) > 5*time.Millisecond && b.stop.Before(b.next) {
				if err := sleep.For(ctx, b.stop.Sub(now)); err != nil {
					break
				}
			}
			p, err := s.readHistory(ctx, pids)
			due = b.next
			if err == nil {
				out = append(out, p...)
			}
			continue
		}
		p, err := s.probe(ctx, pids, b.n, interval)
		due = now.Add(time.Duration(b.n) * interval)
		if err != nil {
			continue
		}
		out = append(out, p...)
	}
	return out
}

// batch is the probe loop's next step: n instants one interval apart from
// now, the last at or before stop; n = 0 means wait a moment and look again.
type batch struct {
	n    int
	stop time.Time // the batch's last instant may fall at stop, no later
	next time.Time // the next tick
}

// nextBatch plans the probe loop's step at now, for a window from start to
// end with ticks at start + k*tick, the side's latest tick read being
// ticked (-1: none), the next instant due at due. It waits while there are
// no backends to probe, while the next instant is not due, and while a
// batch would reach within tickMargin of the next tick (or the tick due
// has not been read yet); a batch lasts at most probeBatch. Pure: the
// caller reads the clock.
func nextBatch(now, start, end, due time.Time, ticked int, tick, interval time.Duration, havePIDs bool) batch {
	next := start.Add(time.Duration(ticked+1) * tick)
	stop := earliest(next.Add(-tickMargin), end, now.Add(probeBatch))
	b := batch{stop: stop, next: next}
	if havePIDs && !now.Before(due) && now.Before(stop) {
		b.n = int(stop.Sub(now)/interval) + 1
	}
	return b
}

// earliest returns the earliest of the times.
func earliest(t time.Time, more ...time.Time) time.Time {
	for _, u := range more {
		if u.Before(t) {
			t = u
		}
	}
	return t
}

// errNoConn means a failure dropped the side's connection; the next tick
// reconnects.
var errNoConn = errors.New("no connection until the next tick")

// probe runs one batch on the side's connection (see withConn).
func (s *session) probe(ctx context.Context, pids []int32, n int, interval time.Duration) ([]Probe, error) {
	var p []Probe
	err := s.withConn(ctx, probeBatch+pg.ReadTimeout, func(qctx context.Context) (err error) {
		p, err = readWaitBatch(qctx, s.conn, s.name, pids, n, interval)
		return err
	})
	return p, err
}

// readHistory reads the side's pg_wait_sampling history since the last
// read; a failure drops the connection as a failed probe does.
func (s *session) readHistory(ctx context.Context, pids []int32) ([]Probe, error) {
	var p []Probe
	err := s.withConn(ctx, pg.ReadTimeout, func(qctx context.Context) error {
		var newest time.Time
		var err error
		if p, newest, err = readHistory(qctx, s.conn, s.name, pids, s.histSince); err == nil {
			s.histSince = newest
		}
		return err
	})
	return p, err
}

// withConn runs read on the side's connection, under a timeout that covers
// a server that stops answering (the statement outlives ctx by at most
// timeout). A failure opens a gap, which the next tick that answers closes,
// and drops the connection for the next tick to reopen.
func (s *session) withConn(ctx context.Context, timeout time.Duration, read func(context.Context) error) error {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	if s.conn == nil {
		return errNoConn
	}
	qctx, cancel := pg.WithAnswerTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	at := time.Now()
	err := read(qctx)
	if err != nil {
		s.openGap(at, gapCause(qctx, err))
		s.conn.Close()
		s.conn = nil
		s.setPIDs(nil)
	}
	return err
}

func closeAll(sides []*session) {
	for _, s := range sides {
		s.conn.Close()
	}
}

// release hands each side's session still open to keep (closing them
// without it, or when the run was cancelled).
func release(ctx context.Context, sides []*session, keep func(string, *pg.Conn)) {
	for _, s := range sides {
		switch {
		case s.conn == nil:
		case keep == nil || ctx.Err() != nil || s.conn.IsClosed():
			s.conn.Close()
		default:
			keep(s.name, s.conn)
		}
		s.conn = nil
	}
}

// markProcVisibility records, for a local side whose backends never matched a
// /proc entry, that /proc did not show them (container or pid namespace).
func markProcVisibility(rec *Recording, o Options) {
	if o.Proc == nil {
		return
	}
	seen, had := map[string]bool{}, map[string]bool{}
	for _, t := range rec.Ticks {
		for _, p := range t.Procs {
			seen[p.Side] = true
		}
		had[Publisher] = had[Publisher] || len(t.Senders) > 0
		for _, s := range t.Subs {
			had[Subscriber] = had[Subscriber] || s.WorkerPID != 0
		}
	}
	// Only a side that had replication backends can say /proc did not show them.
	if rec.Publisher.ProcUnavailable == "" && had[Publisher] && !seen[Publisher] {
		rec.Publisher.ProcUnavailable = "no replication backend of this server was found in this host's /proc"
	}
	if rec.Subscriber != nil && rec.Subscriber.ProcUnavailable == "" && had[Subscriber] && !seen[Subscriber] {
		rec.Subscriber.ProcUnavailable = "no replication backend of this server was found in this host's /proc"
	}
}
