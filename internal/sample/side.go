package sample

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/proc"
	"github.com/lagscope/lagscope/internal/topology"
)

// Side names used in recordings.
const (
	Publisher  = "publisher"
	Subscriber = "subscriber"
)

// Connector opens an observing session to one node, named by its id
// ("publisher", "subscriber", "primary", "standby", or a window's own).
type Connector func(ctx context.Context, side string) (*pg.Conn, error)

// ErrNoWaitVisibility means the role cannot see other sessions' wait events.
var ErrNoWaitVisibility = errors.New("this role cannot see wait events: grant it pg_monitor (GRANT pg_monitor TO <role>)")

// session is one side's connection, shared by the tick loop (positions
// once a tick) and the probe loop (wait events in batches that end just
// before each tick): a second session per server cost ~20 ms of server CPU
// to start, 0.2% of a core over a 10 s window (docs/log/performance.md).
type session struct {
	node    topology.Node
	name    string // the node's id: its Side in probes, gaps and processes
	connect Connector
	connMu  sync.Mutex // held while a statement runs on conn
	conn    *pg.Conn
	mu      sync.Mutex // guards pids and ticked
	pids    []int32    // backends to probe, set by the tick loop
	hz      float64    // probes a second, set by the tick loop (see probeHz)
	maxHz   float64    // the highest hz set in the run (the recording's)
	ticked  int        // index of the last tick read on this side (-1: none yet)
	// tickedCh signals the probe loop that a tick was read (see awaitTurn).
	tickedCh chan struct{}
	gapFrom  time.Time // start of an open gap, under connMu
	gapErr   string
	// history: read wait events from pg_wait_sampling's history, the
	// newest sample read so far being at histSince (server time).
	history   bool
	histSince time.Time
	// walDir is the publisher's pg_wal (data_directory/pg_wal), read at the
	// first tick of a publisher on this host (walDisk).
	walDir string
	// appliedAt is when the apply work was last read (zero: not yet).
	appliedAt time.Time
	// loadFrom is the host's load read at the window's first tick, at
	// loadAt (nil: not yet; readHostLoadSource).
	loadFrom map[int]proc.ProcCPU
	loadAt   time.Time
	// lastReplay is a standby's replay position at its last tick (0: none
	// yet): replay standing still with WAL to replay is read for what
	// holds it (readHoldersSource).
	lastReplay lsn.LSN
	// parent is Run's context: a tick's statements end with it (Ctrl-C)
	// or their own timeout, not with the window, so that a read still
	// running when the window ends does not cut the session (pgx closes a
	// connection whose statement is cancelled) and the monitor can keep it.
	parent context.Context
}

// newSession is node's session before it connects, no tick read yet.
func newSession(node topology.Node, connect Connector, parent context.Context) *session {
	return &session{node: node, name: string(node.ID), connect: connect, ticked: -1, parent: parent, tickedCh: make(chan struct{}, 1)}
}

// setTicked records that tick k was read and wakes the probe loop.
func (s *session) setTicked(k int) {
	s.mu.Lock()
	s.ticked = k
	s.mu.Unlock()
	select {
	case s.tickedCh <- struct{}{}:
	default: // a signal is pending already
	}
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
	var ok bool
	err = pg.AgainOnRecoveryConflict(ctx, s.conn, func() (err error) {
		ok, err = checkVisibility(ctx, s.conn)
		return err
	})
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

// ApplyWorkEvery is how often the subscribed tables' counters and the apply
// workers' WAL and I/O are read: what is derived from them is the change
// between a table's or worker's first and last reading, so reading them
// every tick only cost the subscriber (0.69-0.71% of a core with them every
// second, lab overhead on 16.14). The window's first and last ticks always
// read them.
const ApplyWorkEvery = 5 * time.Second

// applyWorkDue says whether the tick at t reads the apply work, and notes
// it.
func (s *session) applyWorkDue(t time.Time, final bool) bool {
	if !final && !s.appliedAt.IsZero() && t.Sub(s.appliedAt) < ApplyWorkEvery-100*time.Millisecond {
		return false
	}
	s.appliedAt = t
	return true
}

// SideError is a failure of one side's session before the window, after
// it connected.
type SideError struct {
	Side string // Publisher or Subscriber
	Err  error
}

func (e *SideError) Error() string { return e.Side + ": " + e.Err.Error() }
func (e *SideError) Unwrap() error { return e.Err }

// read does tick k on one node, reconnecting after a failure; final says
// it is the window's last. It returns what the node answered (OK false
// when it did not), reading the sources its role lists (roleSources);
// processes and failed best-effort reads go on tk.
func (s *session) read(ctx context.Context, tk *Tick, k int, final bool, w *NodeWindow, o Options) Read {
	rd := Read{Node: s.node.ID}
	positions, sources, onHost, ok := sourcesOf(s.node.Role)
	if !ok {
		return rd
	}
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
		// A reconnect ends with the window as well: cut, it loses nothing
		// (a frozen path would hold it for its timeout past the end).
		cctx, ccancel := pg.WithAnswerTimeout(runCtx, pg.ReadTimeout)
		c, err := s.connect(cctx, s.name)
		ccancel()
		if err != nil {
			if runCtx.Err() == nil {
				s.openGap(tk.At, gapCause(cctx, err))
			}
			return rd
		}
		s.conn = c
	}
	keys, err := positions(ctx, s.conn, &rd)
	if err == nil {
		// Best effort: a failed read of lock blockers or COPY progress (a
		// timeout of pg_blocking_pids) leaves those out of this tick
		// instead of losing the tick, and the tick says so; a broken
		// connection fails the next tick's reads.
		for _, src := range sources {
			if src.Due == nil || src.Due(s, tk.At, final) {
				tk.noteReadError(s.name, src.Name, src.Read(stmt, s, &rd, keys))
			}
		}
	}
	if err != nil {
		// What the positions read before they failed stays, not OK.
		if runCtx.Err() != nil {
			return rd
		}
		s.openGap(tk.At, gapCause(ctx, err))
		s.conn.Close()
		s.conn = nil
		s.clearPIDs()
		return rd
	}
	if g, ok := s.closeGap(tk.At); ok {
		w.Gaps = append(w.Gaps, g)
	}
	procRead := false
	if o.Proc != nil && s.conn.Local {
		ps := readProcs(o.Proc, s.name, keys)
		procRead = len(ps) > 0
		tk.Procs = append(tk.Procs, ps...)
		// The same host's /proc/stat, when read a moment ago for another
		// node: reading it costs the kernel more than any other /proc file
		// lagscope reads (the exporter's profile).
		if rd.Host = tk.host(); rd.Host == nil {
			rd.Host = readHost(o.Proc)
		}
		for _, src := range onHost {
			tk.noteReadError(s.name, src.Name, src.Read(stmt, s, &rd, keys))
		}
		if s.hostLoadDue(tk.At, final) {
			tk.noteReadError(s.name, SourceHostLoad, readHostLoadSource(stmt, s, &rd, keys, o.Proc, tk.At))
		}
	}
	s.setPIDs(pidList(keys), probeHz(o.ProbeHz, procRead))
	// After the positions and /proc, so that those stay on the tick.
	// Bursts stand in for /proc: only on a node without its figures at this
	// tick (a remote server, --no-proc, processes /proc cannot see), unless
	// asked for beside them (calibration: the lab's recordings).
	if !o.NoBurst && (!procRead || o.AlwaysBurst) && k%burstEvery == 0 {
		// Best effort, as above: a failed burst leaves this tick without one.
		ms, err := bestEffort(stmt, func(ctx context.Context) ([]float64, error) { return readBurst(ctx, s.conn) })
		tk.noteReadError(s.name, SourceCPUBurst, err)
		if err == nil {
			rd.Burst = ms
		}
	}
	rd.OK = true
	return rd
}

// lockWaiters are the backends that waited on a lock when the tick read
// them: the blockers statement runs only for them, not at every tick (it
// cost the subscriber about 0.7 ms a tick, 16.14).
func lockWaiters(keys map[int]procKey) []int32 {
	var pids []int32
	for pid, k := range keys {
		if k.lockWait {
			pids = append(pids, int32(pid))
		}
	}
	return pids
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

func (s *session) setPIDs(p []int32, hz float64) {
	s.mu.Lock()
	s.pids, s.hz, s.maxHz = p, hz, max(s.maxHz, hz)
	s.mu.Unlock()
}

// clearPIDs stops the probes until a tick finds the backends again.
func (s *session) clearPIDs() {
	s.mu.Lock()
	s.pids = nil
	s.mu.Unlock()
}

// state returns the backends to probe, the probe rate and the index of the
// last tick read.
func (s *session) state() ([]int32, float64, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pids, s.hz, s.ticked
}

// errNoConn means a failure dropped the side's connection; the next tick
// reconnects.
var errNoConn = errors.New("no connection until the next tick")

// withConn runs read on the side's connection, under a timeout that covers
// a server that stops answering (the statement outlives ctx by at most
// timeout). A failure opens a gap, which the next tick that answers closes,
// and drops the connection for the next tick to reopen; a statement a
// standby cancelled for a recovery conflict is lost alone.
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
	if err != nil && pg.RecoveryCancelled(err) && !s.conn.IsClosed() {
		// A standby cancelled the statement for a recovery conflict: the
		// probe is lost, the session is not (closing it made gaps of a
		// second on a standby replaying old WAL).
		return err
	}
	if err != nil {
		s.openGap(at, gapCause(qctx, err))
		s.conn.Close()
		s.conn = nil
		s.clearPIDs()
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
