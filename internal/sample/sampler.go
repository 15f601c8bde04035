package sample

import (
	"context"
	"errors"
	"fmt"
	"github.com/lagscope/lagscope/internal/sleep"
	"sync"
	"time"

	"github.com/lagscope/lagscope/internal/pg"
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

// session is one side's pair of connections: ticks and probes run
// concurrently and a pgx connection serves one caller at a time.
type session struct {
	name    string
	connect Connector
	mu      sync.Mutex
	tick    *pg.Conn
	probe   *pg.Conn
	pids    []int32 // backends to probe, set by the tick loop
	gapFrom time.Time
	gapErr  string
}

// Run samples until o.Duration passes, ctx is cancelled or o.Until says so.
// A cancelled ctx ends sampling early without an error.
func Run(ctx context.Context, connect Connector, o Options) (*Recording, error) {
	o.defaults()
	sides := []*session{{name: Publisher, connect: connect}}
	if o.Subscriber {
		sides = append(sides, &session{name: Subscriber, connect: connect})
	}
	rec := &Recording{Version: RecordingVersion}
	for _, s := range sides {
		var err error
		if s.tick, err = connect(ctx, s.name); err != nil {
			closeAll(sides)
			return nil, err
		}
		if s.probe, err = connect(ctx, s.name); err != nil {
			closeAll(sides)
			return nil, err
		}
		ok, err := checkVisibility(ctx, s.tick)
		if err != nil || !ok {
			closeAll(sides)
			return nil, fmt.Errorf("%s: %w", s.name, ErrNoWaitVisibility)
		}
		srv := Server{Version: s.tick.Version.String(), Major: s.tick.Version.Major}
		switch {
		case o.Proc == nil:
			srv.ProcUnavailable = "process figures disabled (--no-proc)"
		case !s.tick.Local:
			srv.ProcUnavailable = "server is not on this host (connected over the network)"
		}
		if s.name == Publisher {
			rec.Publisher = srv
		} else {
			rec.Subscriber = &srv
		}
	}
	defer closeAll(sides)

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
			probes[i] = probeLoop(runCtx, s, o.ProbeHz, end)
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
		if !s.gapFrom.IsZero() {
			rec.Gaps = append(rec.Gaps, Gap{Side: s.name, From: s.gapFrom, To: rec.End, Cause: s.gapErr})
		}
	}
	markProcVisibility(rec, o)
	return rec, nil
}

func tickLoop(ctx context.Context, stop func(), sides []*session, rec *Recording, o Options) {
	t := time.NewTicker(o.Tick)
	defer t.Stop()
	for {
		tk := Tick{At: time.Now()}
		for _, s := range sides {
			ok := s.read(ctx, &tk, rec, o)
			if s.name == Publisher {
				tk.PubOK = ok
			} else {
				tk.SubOK = ok
			}
		}
		rec.Ticks = append(rec.Ticks, tk)
		if o.Until != nil && o.Until(tk) {
			stop()
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// read does one tick on one side, reconnecting after a failure. It reports
// whether the side answered.
func (s *session) read(ctx context.Context, tk *Tick, rec *Recording, o Options) bool {
	if s.tick == nil {
		c, err := s.connect(ctx, s.name)
		if err != nil {
			return false
		}
		s.tick = c
	}
	var keys map[int]procKey
	var err error
	if s.name == Publisher {
		keys, err = readPublisher(ctx, s.tick, tk)
	} else {
		keys, err = readSubscriber(ctx, s.tick, tk)
	}
	if err != nil {
		if ctx.Err() != nil {
			return false
		}
		if s.gapFrom.IsZero() {
			s.gapFrom, s.gapErr = tk.At, pg.Redact(err.Error())
		}
		s.tick.Close()
		s.tick = nil
		s.setPIDs(nil)
		return false
	}
	if !s.gapFrom.IsZero() {
		rec.Gaps = append(rec.Gaps, Gap{Side: s.name, From: s.gapFrom, To: tk.At, Cause: s.gapErr})
		s.gapFrom = time.Time{}
	}
	pids := make([]int32, 0, len(keys))
	for pid := range keys {
		pids = append(pids, int32(pid))
	}
	s.setPIDs(pids)
	if o.Proc != nil && s.tick.Local {
		tk.Procs = append(tk.Procs, readProcs(o.Proc, s.name, keys)...)
		if s.name == Publisher {
			tk.PubHost = readHost(o.Proc)
		} else {
			tk.SubHost = readHost(o.Proc)
		}
	}
	return true
}

func (s *session) setPIDs(p []int32) {
	s.mu.Lock()
	s.pids = p
	s.mu.Unlock()
}

func (s *session) getPIDs() []int32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pids
}

// probeLoop reads wait events of the side's replication processes at hz
// until ctx ends, a batch of probes per statement (see readWaitBatch). The
// last batch is cut to end at end; a batch under way when ctx ends early
// (Until) finishes, so its probes are kept.
func probeLoop(ctx context.Context, s *session, hz float64, end time.Time) []Probe {
	var out []Probe
	interval := time.Duration(float64(time.Second) / hz)
	for ctx.Err() == nil {
		pids := s.getPIDs()
		n := int(min(probeBatch, time.Until(end)) / interval)
		if len(pids) == 0 || n < 1 {
			// No backends yet (the first tick has not run), or less
			// than an interval left.
			if err := sleep.For(ctx, interval); err != nil {
				break
			}
			continue
		}
		if s.probe == nil {
			c, err := s.connect(ctx, s.name)
			if err != nil {
				_ = sleep.For(ctx, interval)
				continue
			}
			s.probe = c
		}
		// The statement outlives ctx by at most one batch; the timeout
		// covers a server that stops answering.
		qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), probeBatch+5*time.Second)
		p, err := readWaitBatch(qctx, s.probe, s.name, pids, n, interval)
		cancel()
		if err != nil {
			s.probe.Close()
			s.probe = nil
			_ = sleep.For(ctx, interval)
			continue
		}
		out = append(out, p...)
	}
	return out
}

func closeAll(sides []*session) {
	for _, s := range sides {
		s.tick.Close()
		s.probe.Close()
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
