package sample

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/sleep"
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

// Run samples the pair until o.Duration passes, ctx is cancelled or
// o.Until says so. A cancelled ctx ends sampling early without an error.
func Run(ctx context.Context, connect Connector, o Options) (*Recording, error) {
	sub := topology.NodeID("")
	if o.Subscriber {
		sub = SubscriberNode
	}
	w, err := runNodes(ctx, connect, topology.Pair(o.Subscriber).Nodes, o, true, false)
	if err != nil {
		return nil, err
	}
	return w.Pair(PublisherNode, sub)
}

// RunPhysical samples a physical path until o.Duration passes, ctx is
// cancelled or o.Until says so: the primary node (PrimaryNode) when
// primary is true, the standby node (StandbyNode) when standby is, each
// opened with connect under its id ("primary", "standby"). A cancelled
// ctx ends sampling early without an error. o.Subscriber is not used.
func RunPhysical(ctx context.Context, connect Connector, primary, standby bool, o Options) (*Recording, error) {
	nodes := PhysicalNodes(primary, standby)
	if len(nodes) == 0 {
		return nil, errors.New("a physical path needs a primary or a standby to sample")
	}
	w, err := runNodes(ctx, connect, nodes, o, true, false)
	if err != nil {
		return nil, err
	}
	var p, s topology.NodeID
	if primary {
		p = PrimaryNode
	}
	if standby {
		s = StandbyNode
	}
	return w.Physical(p, s)
}

// RunNodes samples nodes (each opened with connect under its id) until
// o.Duration passes or ctx is cancelled: each node once, whatever number
// of paths read it (NodeWindow.Pair cuts each path's recording out). A
// node that cannot be opened is left out of the window and its error kept
// in Failed; RunNodes fails only when none can be. o.Subscriber, o.Until
// and o.OnTick are Run's: RunNodes does not use them. A cancelled ctx ends
// sampling early without an error.
func RunNodes(ctx context.Context, connect Connector, nodes []topology.Node, o Options) (*NodeWindow, error) {
	o.Until, o.OnTick = nil, nil
	return runNodes(ctx, connect, nodes, o, false, true)
}

// runNodes is RunNodes; with view, each tick goes to o.OnTick and o.Until;
// without partial, the first node that
// cannot be opened fails the run.
func runNodes(ctx context.Context, connect Connector, nodes []topology.Node, o Options, view, partial bool) (*NodeWindow, error) {
	o.defaults()
	var sides []*session
	for _, n := range nodes {
		sides = append(sides, newSession(n, connect, ctx))
	}
	w := &NodeWindow{}
	opened := sides[:0:0]
	for _, s := range sides {
		srv, err := s.open(ctx, o)
		if err != nil && !partial {
			closeAll(sides)
			return nil, err
		}
		if err != nil {
			s.conn.Close()
			s.conn = nil
			if w.Failed == nil {
				w.Failed = map[topology.NodeID]error{}
			}
			w.Failed[s.node.ID] = err
			continue
		}
		opened = append(opened, s)
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
		w.Nodes = append(w.Nodes, Node{Node: s.node, Server: srv})
	}
	if len(opened) == 0 && len(sides) > 0 {
		return nil, w.Failed[sides[0].node.ID]
	}
	sides = opened
	defer release(ctx, sides, o.Release)

	w.Start = time.Now()
	end := w.Start.Add(o.Duration)
	runCtx, cancel := context.WithDeadline(ctx, end)
	defer cancel()

	var wg sync.WaitGroup
	probes := make([][]Probe, len(sides))
	for i, s := range sides {
		wg.Add(1)
		go func() {
			defer wg.Done()
			probes[i] = probeLoop(runCtx, s, o, w.Start, end)
		}()
	}
	tickLoop(runCtx, cancel, sides, w, o, view)
	cancel()
	wg.Wait()
	for _, p := range probes {
		w.Probes = append(w.Probes, p...)
	}
	w.End = time.Now()
	for i, s := range sides {
		w.Nodes[i].ProbeHz = s.probedHz()
	}
	for _, s := range sides {
		if g, ok := s.closeGap(w.End); ok {
			w.Gaps = append(w.Gaps, g)
		}
	}
	markProcVisibility(w, o)
	return w, nil
}

// tickLoop reads every node at w.Start + k*o.Tick, k = 0, 1, ..., until
// ctx ends. A tick read late (a frozen server held it for its timeouts)
// is not followed by the ticks it overran: the next is the first still due.
func tickLoop(ctx context.Context, stop func(), sides []*session, w *NodeWindow, o Options, view bool) {
	for k := 0; ; k = nextTick(k, time.Since(w.Start), o.Tick) {
		if err := sleep.For(ctx, time.Until(w.Start.Add(time.Duration(k)*o.Tick))); err != nil {
			return
		}
		nt := Tick{At: time.Now()}
		// The window's last tick: counters read as first and last (the
		// apply work) are read there whatever their cadence.
		final := !w.Start.Add(time.Duration(k+1) * o.Tick).Before(w.Start.Add(o.Duration))
		for _, s := range sides {
			nt.Reads = append(nt.Reads, s.read(ctx, &nt, k, final, w, o))
			s.setTicked(k)
		}
		if !o.KeepQueryLiterals {
			nt.normalizeQueries()
		}
		w.Ticks = append(w.Ticks, nt)
		if !view {
			continue
		}
		if o.OnTick != nil {
			o.OnTick(nt)
		}
		if o.Until != nil && o.Until(nt) {
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

// markProcVisibility records, for a local node whose backends never matched
// a /proc entry, that /proc did not show them (container or pid namespace).
func markProcVisibility(w *NodeWindow, o Options) {
	if o.Proc == nil {
		return
	}
	for i := range w.Nodes {
		n := &w.Nodes[i]
		seen, had := false, false
		for _, t := range w.Ticks {
			for _, p := range t.Procs {
				seen = seen || p.Side == string(n.ID)
			}
			for _, r := range t.Reads {
				had = had || r.Node == n.ID && r.hasBackends()
			}
		}
		// Only a node that had replication backends can say /proc did not show them.
		if n.ProcUnavailable == "" && had && !seen {
			n.ProcUnavailable = "no replication backend of this server was found in this host's /proc"
		}
	}
}
