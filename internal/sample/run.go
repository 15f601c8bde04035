package sample

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/sleep"
	"github.com/lagscope/lagscope/internal/sqltext"
	"github.com/lagscope/lagscope/internal/topology"
)

// Options control one sampling run.
type Options struct {
	// Duration is how long to sample (required).
	Duration time.Duration
	// Tick is the interval of position/counter/CPU reads (0 = 1 s).
	Tick time.Duration
	// ProbeHz is the wait-event probe rate per side (0: chosen per side
	// and tick, see probeHz).
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
	// KeepQueryLiterals keeps the constants in the query text of lock
	// blockers and open transactions; by default they are replaced with
	// $n placeholders (sqltext.Normalize) before the tick is stored or
	// handed to OnTick. Passwords are hidden either way (sqltext.Redact).
	KeepQueryLiterals bool
}

func (o *Options) defaults() {
	if o.Tick <= 0 {
		o.Tick = time.Second
	}
}

// Run samples until o.Duration passes, ctx is cancelled or o.Until says so.
// A cancelled ctx ends sampling early without an error.
func Run(ctx context.Context, connect Connector, o Options) (*Recording, error) {
	o.defaults()
	var sides []*session
	for _, n := range topology.Pair(o.Subscriber).Nodes {
		sides = append(sides, newSession(n, connect, ctx))
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
		default:
			// The host's CPUs bound how many processes can run at once (a
			// split's apply workers); 0 when /proc/stat does not read.
			if h, err := o.Proc.Host(); err == nil {
				srv.CPUs = h.CPUs
			}
		}
		rec.setServer(s.node.ID, srv)
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
		rec.Server(s.node.ID).ProbeHz = s.probedHz()
	}
	for _, s := range sides {
		if g, ok := s.closeGap(rec.End); ok {
			rec.Gaps = append(rec.Gaps, g)
		}
	}
	markProcVisibility(rec, o)
	return rec, nil
}

// tickLoop reads both sides at rec.Start + k*o.Tick, k = 0, 1, ..., until
// ctx ends. A tick read late (a frozen server held it for its timeouts)
// is not followed by the ticks it overran: the next is the first still due.
func tickLoop(ctx context.Context, stop func(), sides []*session, rec *Recording, o Options) {
	for k := 0; ; k = nextTick(k, time.Since(rec.Start), o.Tick) {
		if err := sleep.For(ctx, time.Until(rec.Start.Add(time.Duration(k)*o.Tick))); err != nil {
			return
		}
		tk := Tick{At: time.Now()}
		// The window's last tick: counters read as first and last (the
		// apply work) are read there whatever their cadence.
		final := !rec.Start.Add(time.Duration(k+1) * o.Tick).Before(rec.Start.Add(o.Duration))
		for _, s := range sides {
			tk.store(s.read(ctx, &tk, k, final, rec, o))
			s.setTicked(k)
		}
		if !o.KeepQueryLiterals {
			tk.normalizeQueries()
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

// nextTick is the tick to read after tick k, elapsed after the window's
// start: k+1, or the latest tick already due when tick k ran past it (the
// ticks in between are skipped, not read at once one after the other).
func nextTick(k int, elapsed, tick time.Duration) int {
	return max(k+1, int(elapsed/tick))
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

// markProcVisibility records, for a local side whose backends never matched a
// /proc entry, that /proc did not show them (container or pid namespace).
func markProcVisibility(rec *Recording, o Options) {
	if o.Proc == nil {
		return
	}
	seen, had := map[string]bool{}, map[topology.NodeID]bool{}
	for i, t := range rec.Ticks {
		for _, p := range t.Procs {
			seen[p.Side] = true
		}
		for _, n := range rec.Nodes() {
			had[n.ID] = had[n.ID] || rec.Ticks[i].Read(n.ID).hasBackends()
		}
	}
	// Only a node that had replication backends can say /proc did not show them.
	for _, n := range rec.Nodes() {
		if srv := rec.Server(n.ID); srv.ProcUnavailable == "" && had[n.ID] && !seen[string(n.ID)] {
			srv.ProcUnavailable = "no replication backend of this server was found in this host's /proc"
		}
	}
}

// normalizeQueries replaces the constants in the query text tk captured
// with placeholders (sqltext.Normalize).
func (tk *Tick) normalizeQueries() {
	for i := range tk.Blockers {
		tk.Blockers[i].Query = sqltext.Normalize(tk.Blockers[i].Query)
	}
	for i := range tk.Xacts {
		tk.Xacts[i].Query = sqltext.Normalize(tk.Xacts[i].Query)
	}
}
