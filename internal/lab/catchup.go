package lab

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/sleep"
)

// CatchUp is one measured catch-up of the standby from a released
// backlog: the ground truth of the catch-up forecast.
type CatchUp struct {
	// Target is the publisher's position at the release; Backlog the WAL
	// between the standby's replay position then and Target, bytes.
	Target       lsn.LSN `json:"target_lsn"`
	BacklogBytes int64   `json:"backlog_bytes"`
	// ReleasedAt is when replay was resumed. Seconds is the time from the
	// release until the standby replayed Target (0 with TimedOut).
	ReleasedAt time.Time `json:"released_at"`
	Seconds    float64   `json:"seconds"`
	TimedOut   bool      `json:"timed_out,omitempty"`
	// CaughtUpSeconds is the time from the release until the standby's
	// replay position was first within CaughtUpSlack of the publisher's
	// position of that moment (0: not within the timing): what a catch-up
	// forecast, which chases the primary's moving position, predicts. It
	// equals Seconds, or nearly, when the load stopped at the release.
	CaughtUpSeconds float64 `json:"caught_up_seconds,omitempty"`
	// PrimaryAtCatchUp is the publisher's position when replay reached
	// Target.
	PrimaryAtCatchUp lsn.LSN `json:"primary_lsn_at_catch_up"`
	// ReplayMBps is the replay rate over the catch-up, WALMBps the
	// publisher's WAL rate over it; the ...AtStart rates are over the
	// first catchUpStart after the release (what a forecast made then
	// sees). MB = 1e6 bytes.
	ReplayMBps        float64 `json:"replay_mb_per_s"`
	WALMBps           float64 `json:"wal_mb_per_s"`
	ReplayMBpsAtStart float64 `json:"replay_mb_per_s_at_start"`
	WALMBpsAtStart    float64 `json:"wal_mb_per_s_at_start"`
	// Trace is the catch-up's positions every traceEvery: where the WAL
	// still behind sat (not received, or received and not replayed).
	Trace []CatchUpPoint `json:"trace,omitempty"`
}

// CatchUpPoint is one reading of a catch-up: the seconds since the
// release, the publisher's position, and the standby's receive and replay
// positions.
type CatchUpPoint struct {
	S       float64 `json:"s"`
	Primary lsn.LSN `json:"primary_lsn"`
	Receive lsn.LSN `json:"receive_lsn"`
	Replay  lsn.LSN `json:"replay_lsn"`
}

// traceEvery is how often a catch-up's positions are kept in its Trace.
const traceEvery = 250 * time.Millisecond

// catchUpStart is the stretch after a release whose rates a forecast made
// then would see.
const catchUpStart = 2 * time.Second

// CaughtUpSlack is how close to the publisher's moving position the
// standby's replay counts as caught up: the larger of 64 kB (model.IdleLag,
// an idle server's last records) and half a second of the publisher's WAL
// at the rate after the release (what a running load keeps in flight).
func CaughtUpSlack(walBps float64) int64 {
	return max(64<<10, int64(walBps/2))
}

// caughtUpWatch is how long past the release's target the publisher's
// moving position is chased for CaughtUpSeconds.
const caughtUpWatch = 30 * time.Second

// BehindS is how long the standby stayed behind after the release, in
// seconds: until its replay came within reach of the publisher's moving
// position, or, when it did not while watched (a load that kept writing
// about as fast as it replays), at least until the watch ended.
func (c CatchUp) BehindS() float64 {
	switch {
	case c.CaughtUpSeconds > 0:
		return max(c.Seconds, c.CaughtUpSeconds)
	case c.Seconds > 0:
		return c.Seconds + caughtUpWatch.Seconds()
	}
	return c.Seconds
}

// catchUpLimit bounds a catch-up's timing.
const catchUpLimit = 5 * time.Minute

// catchUpWatch times one catch-up in the background.
type catchUpWatch struct {
	res  CatchUp
	err  error
	done chan struct{}
}

// wait returns the catch-up once timed.
func (w *catchUpWatch) wait(ctx context.Context) (CatchUp, error) {
	select {
	case <-w.done:
		return w.res, w.err
	case <-ctx.Done():
		return w.res, ctx.Err()
	}
}

// release reads the publisher's position, resumes the standby's replay
// and times its catch-up to that position in the background.
func (p *Pair) release(ctx context.Context) (*catchUpWatch, error) {
	s := p.physical
	pub, err := pgx.Connect(ctx, p.Pub.ConnString(Database))
	if err != nil {
		return nil, fmt.Errorf("connect to the publisher: %w", err)
	}
	sb, err := openStandby(ctx, s.ConnString())
	if err != nil {
		pub.Close(context.Background())
		return nil, fmt.Errorf("connect to the standby: %w", err)
	}
	closeBoth := func() { pub.Close(context.Background()); sb.close() }
	var target, from lsn.LSN
	if err := pub.QueryRow(ctx, "SELECT pg_current_wal_lsn()").Scan(&target); err != nil {
		closeBoth()
		return nil, fmt.Errorf("publisher: %w", err)
	}
	if err := sb.query(ctx, "SELECT pg_last_wal_replay_lsn()", &from); err != nil {
		closeBoth()
		return nil, fmt.Errorf("standby: %w", err)
	}
	start := time.Now()
	// Asked again when a recovery conflict cancels it (18.4: a replay
	// backlog built with the pause cancelled the resume itself).
	var resumed bool
	if err := sb.query(ctx, "SELECT true FROM pg_wal_replay_resume()", &resumed); err != nil {
		closeBoth()
		return nil, fmt.Errorf("standby: resume replay: %w", err)
	}
	s.paused = false
	w := &catchUpWatch{done: make(chan struct{}), res: CatchUp{Target: target, BacklogBytes: target.Sub(from), ReleasedAt: start}}
	go func() {
		defer close(w.done)
		defer closeBoth()
		w.err = w.time(ctx, pub, sb, start, from)
	}()
	return w, nil
}

// time polls the standby's replay position until it reaches the target.
func (w *catchUpWatch) time(ctx context.Context, pub *pgx.Conn, sb *standbyConn, start time.Time, from lsn.LSN) error {
	r := &w.res
	primaryFrom := r.Target
	startRates := false
	var traced time.Duration
	for {
		var at, recv lsn.LSN
		if err := sb.query(ctx, "SELECT pg_last_wal_replay_lsn(), pg_last_wal_receive_lsn()", &at, &recv); err != nil {
			return fmt.Errorf("standby: %w", err)
		}
		el := time.Since(start)
		reached := at >= r.Target
		if trace := len(r.Trace) == 0 || el-traced >= traceEvery; r.CaughtUpSeconds == 0 || trace {
			var cur lsn.LSN
			if err := pub.QueryRow(ctx, "SELECT pg_current_wal_lsn()").Scan(&cur); err != nil {
				return fmt.Errorf("publisher: %w", err)
			}
			if r.CaughtUpSeconds == 0 && cur.Sub(at) <= CaughtUpSlack(r.WALMBpsAtStart*1e6) {
				r.CaughtUpSeconds = max(el.Seconds(), 1e-3)
			}
			if trace {
				r.Trace = append(r.Trace, CatchUpPoint{S: el.Seconds(), Primary: cur, Receive: recv, Replay: at})
				traced = el
			}
		}
		if (el >= catchUpStart || reached) && !startRates {
			var cur lsn.LSN
			if err := pub.QueryRow(ctx, "SELECT pg_current_wal_lsn()").Scan(&cur); err != nil {
				return fmt.Errorf("publisher: %w", err)
			}
			sec := time.Since(start).Seconds()
			r.ReplayMBpsAtStart = float64(at.Sub(from)) / sec / 1e6
			r.WALMBpsAtStart = float64(cur.Sub(primaryFrom)) / sec / 1e6
			startRates = true
		}
		if reached && r.Seconds == 0 {
			r.Seconds = el.Seconds()
			var cur lsn.LSN
			if err := pub.QueryRow(ctx, "SELECT pg_current_wal_lsn()").Scan(&cur); err != nil {
				return fmt.Errorf("publisher: %w", err)
			}
			r.PrimaryAtCatchUp = cur
			r.ReplayMBps = float64(at.Sub(from)) / r.Seconds / 1e6
			r.WALMBps = float64(cur.Sub(primaryFrom)) / r.Seconds / 1e6
		}
		// Past the target, the moving position is watched a while longer
		// (a load that kept running is chased, not reached).
		if r.Seconds > 0 && (r.CaughtUpSeconds > 0 || el.Seconds() > r.Seconds+caughtUpWatch.Seconds()) {
			return nil
		}
		if el > catchUpLimit {
			r.TimedOut = true
			return nil
		}
		if err := sleep.For(ctx, 20*time.Millisecond); err != nil {
			return err
		}
	}
}

// catchUpCycle builds the scenario's backlog again (replay paused, the
// load for its time) and times another catch-up from its release.
func (p *Pair) catchUpCycle(ctx context.Context, log io.Writer) (CatchUp, error) {
	s := p.physical
	c := s.cycle
	// From no backlog, as the first: what the last catch-up left behind
	// while the load kept writing drains first, with the load stopped.
	head, err := Query[lsn.LSN](ctx, p.Pub.ConnString(Database), "SELECT pg_current_wal_lsn()")
	if err != nil {
		return CatchUp{}, fmt.Errorf("publisher: %w", err)
	}
	fmt.Fprintf(log, "lab: letting the standby replay up to the publisher's %s before the next cycle\n", head)
	if err := s.waitReplayed(ctx, head, catchUpLimit); err != nil {
		return CatchUp{}, err
	}
	if err := s.pause(ctx); err != nil {
		return CatchUp{}, err
	}
	fmt.Fprintf(log, "lab: building a replay backlog with replay paused: %d clients for %s\n", c.load.Clients, c.backlog.Round(time.Second))
	load, err := StartLoad(ctx, p.Pub, c.load)
	if err != nil {
		return CatchUp{}, err
	}
	defer load.Stop()
	if err := sleep.For(ctx, c.backlog); err != nil {
		return CatchUp{}, err
	}
	if !c.keep {
		load.Stop()
	}
	w, err := p.release(ctx)
	if err != nil {
		return CatchUp{}, err
	}
	return w.wait(ctx)
}
