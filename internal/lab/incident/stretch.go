package incident

import (
	"context"
	"fmt"
	"time"

	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/sleep"
)

// runner holds the pair and its current load through the script.
type runner struct {
	p    *lab.Pair
	o    Options
	s    Script
	load *lab.Load
	// grid is the first stretch's start: each stretch starts on a
	// multiple of Script.Window from it, as the timeline's windows do
	// (timeline.Read from the run's start), so that a change of state
	// meets a window's edge, not its middle.
	grid time.Time
}

// align waits for the next edge of the timeline's windows (the first
// call sets the grid).
func (r *runner) align(ctx context.Context) error {
	now := time.Now()
	if r.grid.IsZero() {
		r.grid = now
		return nil
	}
	// Within a second past an edge is on it: a stretch that ends on an
	// edge lets the next start at once, not a window later.
	w := r.s.Window
	k := now.Sub(r.grid) / w
	if now.Sub(r.grid)-k*w <= time.Second {
		return nil
	}
	return sleep.Until(ctx, r.grid.Add((k+1)*w))
}

// A load the script runs on the publisher.
type loadKind int

const (
	noLoad     loadKind = iota
	lightLoad           // 2 clients at 200 transactions/s
	steadyLoad          // 16 clients at Script.SteadyTPS
	fullLoad            // 16 clients as fast as they go
)

// setLoad replaces the running load with k.
func (r *runner) setLoad(ctx context.Context, k loadKind) (err error) {
	r.load.Stop()
	r.load = nil
	lo := lab.LoadOptions{PGBench: r.o.PGBench, Clients: 16, Rows: r.o.Pair.Rows, CPUs: r.o.Pair.PubCPUs}
	switch k {
	case noLoad:
		return nil
	case lightLoad:
		lo.Clients, lo.TPS = 2, 200
	case steadyLoad:
		lo.TPS = r.s.SteadyTPS
	}
	r.load, err = lab.StartLoad(ctx, r.p.Pub, lo)
	return err
}

// start enables the subscription under the light load and waits until
// it has caught up.
func (r *runner) start(ctx context.Context) error {
	if err := r.p.SetEnabled(ctx, true); err != nil {
		return err
	}
	if err := r.p.WaitWorkers(ctx); err != nil {
		return err
	}
	if err := r.setLoad(ctx, lightLoad); err != nil {
		return err
	}
	_, err := r.p.WaitDrained(ctx, drainedBelow, drainLimit)
	return err
}

// stretch makes one stretch of kind k and returns what was made: the
// stretch, and for a lock, link or starving load its Drain after.
func (r *runner) stretch(ctx context.Context, k Kind) ([]Stretch, error) {
	st := Stretch{Kind: k, Want: k.Want()}
	var live func() *Live
	var err error
	switch k {
	case CaughtUp:
		if err = r.align(ctx); err != nil {
			break
		}
		st.From = time.Now()
		if err = r.setLoad(ctx, lightLoad); err == nil {
			live = r.liveAt(ctx, st.From.Add((r.s.Between-r.s.Live)/2), r.s.Live)
			err = sleep.Until(ctx, st.From.Add(r.s.Between))
			st.To = time.Now()
		}
	case Lock, Link, Starved:
		if err = r.align(ctx); err != nil {
			break
		}
		st.From, live, err = r.hold(ctx, k)
		st.To = time.Now()
		if err == nil {
			st.Live = live()
			d := Stretch{Kind: Drain, From: st.To}
			d.To, err = r.p.WaitDrained(ctx, drainedBelow, drainLimit)
			return []Stretch{st, d}, err
		}
	case Stall:
		if err = r.p.AddSubIndexes(ctx, ExtraIndexes); err != nil {
			break
		}
		if err = r.align(ctx); err != nil {
			break
		}
		st.From = time.Now()
		if err = r.p.SetEnabled(ctx, false); err != nil {
			break
		}
		if err = r.setLoad(ctx, fullLoad); err != nil {
			break
		}
		live = r.liveAt(ctx, st.From.Add(time.Second), min(r.s.Live, r.s.Backlog-2*time.Second))
		if err = sleep.Until(ctx, st.From.Add(r.s.Backlog)); err == nil {
			err = r.setLoad(ctx, noLoad)
		}
		st.To = time.Now()
	case ApplyBound:
		st.From = time.Now()
		if err = r.p.SetEnabled(ctx, true); err != nil {
			break
		}
		live = r.liveAt(ctx, st.From, r.s.Live)
		if st.To, err = r.p.WaitDrained(ctx, drainedBelow, drainLimit); err == nil {
			err = r.p.DropSubIndexes(ctx, ExtraIndexes)
		}
	default:
		return nil, fmt.Errorf("unknown stretch %q", k)
	}
	if live != nil {
		st.Live = live()
	}
	return []Stretch{st}, err
}

// hold makes a lock, a slow link or a starving load for Script.Hold,
// then undoes it under the light load; the fault's stretch ends there.
func (r *runner) hold(ctx context.Context, k Kind) (time.Time, func() *Live, error) {
	from := time.Now()
	var err error
	switch k {
	case Lock:
		if err = r.p.HoldLock(ctx, "SHARE"); err == nil {
			err = r.setLoad(ctx, steadyLoad)
		}
	case Link:
		r.p.Proxy.SetRate(r.s.LinkRate)
		err = r.setLoad(ctx, steadyLoad)
	case Starved:
		err = r.setLoad(ctx, fullLoad)
	}
	if err != nil {
		return from, nil, err
	}
	live := r.liveAt(ctx, from.Add((r.s.Hold-r.s.Live)/2), r.s.Live)
	err = sleep.Until(ctx, from.Add(r.s.Hold))
	switch k {
	case Lock:
		r.p.ReleaseLock()
	case Link:
		r.p.Proxy.SetRate(0)
	}
	if err == nil {
		err = r.setLoad(ctx, lightLoad)
	}
	return from, live, err
}

// liveAt starts a live diagnose of length d at the time at, in the
// background; the function returned waits for its verdict.
func (r *runner) liveAt(ctx context.Context, at time.Time, d time.Duration) func() *Live {
	out := make(chan *Live, 1)
	go func() {
		l := &Live{}
		defer func() { out <- l }()
		if err := sleep.Until(ctx, at); err != nil {
			l.Err = err.Error()
			return
		}
		rep, rec, err := diagnose.Run(ctx, diagnose.Options{Publisher: r.p.Pub.ConnString(lab.Database), Subscriber: r.p.Sub.ConnString(lab.Database),
			Duration: d, Tick: time.Second})
		switch {
		case err != nil:
			l.Err = err.Error()
		case len(rep.Paths) != 1:
			l.Err = fmt.Sprintf("%d paths, want 1", len(rep.Paths))
		default:
			l.From, l.To, l.Verdict = rec.Start, rec.End, rep.Paths[0].Name
		}
	}()
	return func() *Live { return <-out }
}
