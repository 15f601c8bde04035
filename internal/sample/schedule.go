package sample

import (
	"context"
	"time"

	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/sleep"
	"github.com/lagscope/lagscope/internal/topology"
)

// tickMargin is how long before a tick a probe batch ends, so that the
// tick finds the shared connection free.
const tickMargin = 25 * time.Millisecond

// probeLoop reads wait events of the side's replication processes at the
// rate the side's latest tick set (see probeHz) until ctx ends, a batch of
// instants per statement (see readWaitBatch). Each batch starts after the
// side's latest tick and its last instant falls at least tickMargin before
// the next tick (ticks fall at start + k*o.Tick) and before end; a batch
// under way when ctx ends early (Until) finishes, so its probes are kept.
func probeLoop(ctx context.Context, s *session, o Options, start, end time.Time) []Probe {
	var out []Probe
	var due time.Time // when the next instant is due
	for ctx.Err() == nil {
		pids, hz, ticked := s.state()
		interval := time.Duration(float64(time.Second) / NoProcProbeHz)
		if hz > 0 {
			interval = time.Duration(float64(time.Second) / hz)
		}
		now := time.Now()
		b := nextBatch(now, start, end, due, ticked, o.Tick, interval, len(pids) > 0)
		if s.node.Role == topology.Standby {
			// One instant a statement on a standby: a statement holds its
			// snapshot (backend_xmin) to its end, and replay that removes
			// rows it could see waits for it (a recovery conflict; without
			// end with max_standby_streaming_delay = -1). A batch of a
			// second held replay most of the time under pgbench updates
			// (15.18, 18.4: 24-32 kB replayed in 4 s of 1.6-2.2 MB
			// received); a statement per instant holds it about a
			// millisecond, at ~0.65 ms of the standby's CPU a probe.
			b.n = min(b.n, 1)
		}
		if b.n == 0 {
			s.awaitTurn(ctx, now, due, len(pids) > 0)
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

// idleWait bounds a probe loop's wait for a tick's signal: the loop looks
// again at least this often (a signal is never lost, but a window can end).
const idleWait = 100 * time.Millisecond

// awaitTurn waits, when no batch can start at now, until the next instant
// is due (when it is still ahead) or the tick loop has read a tick (the
// batch waits for the side's latest tick and for its backends), or ctx
// ends. Waiting on the tick's signal, instead of looking again every 5 ms,
// spares the exporter some 15 wake-ups a second per pair.
func (s *session) awaitTurn(ctx context.Context, now, due time.Time, havePIDs bool) {
	wait := idleWait
	if havePIDs && now.Before(due) {
		wait = min(due.Sub(now), idleWait)
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-s.tickedCh:
	case <-t.C:
	}
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
