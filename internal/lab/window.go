package lab

import (
	"context"
	"fmt"
	"time"

	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/proc"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/sleep"
)

// measureScenario drives the pair into the scenario's state, measures it
// for the window, lifts the steps and, when asked, verifies the drained
// data.
func measureScenario(ctx context.Context, p *Pair, s Recipe, o RunOptions) (*Result, error) {
	load, err := p.drive(ctx, s, o)
	if err != nil {
		return nil, err
	}
	defer func() { load.Stop() }()
	var during any
	var duringErr error
	duringDone := make(chan struct{})
	if o.During != nil {
		go func() { during, duringErr = o.During(ctx, p); close(duringDone) }()
	} else {
		close(duringDone)
	}
	fmt.Fprintf(o.Log, "lab: measuring for %s (positions every %s, wait events at %g Hz)\n", o.Duration, o.Tick, o.ProbeHz)
	var res *Result
	if p.physical != nil {
		if res, err = p.measurePhysical(ctx, s, o); err != nil {
			<-duringDone
			return nil, err
		}
	} else {
		var linkStart linkSnap
		if p.Proxy != nil {
			linkStart = snapLink(p)
		}
		rec, err := p.sample(ctx, o, s)
		if err != nil {
			<-duringDone
			return nil, err
		}
		res = &Result{Scenario: s.Name, Layout: string(s.Layout)}
		res.fill(rec, p, s, o)
		if p.Proxy != nil {
			res.Link = linkResult(linkStart, snapLink(p), p.Opts.LinkRate)
		}
	}
	<-duringDone
	if duringErr != nil {
		return nil, duringErr
	}
	res.During = during
	if o.Inspect != nil {
		if res.Inspected, err = o.Inspect(ctx, p); err != nil {
			return nil, err
		}
	}
	// The window is over: lift what the steps hold, so the backlog drains.
	// A catch-up released under a load that keeps running is timed with
	// the load still running (what the forecast assumes), then the load
	// stops.
	if !p.keepsLoadThroughCatchUp() {
		load.Stop()
		load = nil
	}
	if err := p.timeCatchUps(ctx, res, o, load.Stop); err != nil {
		return nil, err
	}
	load.Stop()
	load = nil
	p.liftAll()
	if s.Drains && o.Verify && ctx.Err() == nil {
		p.liftLimits()
		if p.physical != nil {
			res.verify(ctx, p, p.physical.Server, drainTimeout(o.Duration), o.Log)
		} else {
			res.verify(ctx, p, p.Sub, drainTimeout(o.Duration), o.Log)
		}
	}
	return res, ctx.Err()
}

func drainTimeout(d time.Duration) time.Duration {
	if t := 4 * d; t > 2*time.Minute {
		return t
	}
	return 2 * time.Minute
}

// sample records the pair with the lab's method until the window ends or, for
// a scenario without load, the backlog is gone.
func (p *Pair) sample(ctx context.Context, o RunOptions, s Recipe) (*sample.Recording, error) {
	pfs, err := proc.NewFS("")
	if err != nil {
		return nil, err
	}
	connect := func(ctx context.Context, side string) (*pg.Conn, error) {
		if side == sample.Publisher {
			return pg.Connect(ctx, p.Pub.ConnString(Database), side)
		}
		return pg.Connect(ctx, p.Sub.ConnString(Database), side)
	}
	// No CPU bursts: the lab measures with /proc, and diagnose's bursts
	// (lab run --diagnose) must not meet its own.
	so := sample.Options{Duration: o.Duration, Tick: o.Tick, ProbeHz: o.ProbeHz, Proc: pfs, Subscriber: true, NoBurst: true}
	if s.UntilBelow > 0 {
		so.Until = func(t sample.Tick) bool { return drained(t, s.UntilBelow) }
	}
	return sample.Run(ctx, connect, so)
}

// drained reports whether every slot has confirmed all WAL but the last
// left bytes.
func drained(t sample.Tick, left int64) bool {
	pub := t.Read(sample.PublisherNode)
	if !pub.OK || len(pub.Slots) == 0 {
		return false
	}
	for _, sl := range pub.Slots {
		if pub.CurrentLSN.Sub(sl.ConfirmedFlush) > left {
			return false
		}
	}
	// A table still being copied is not drained either (the initial-sync
	// scenario generates no WAL while its tablesync worker copies).
	for _, sb := range t.Read(sample.SubscriberNode).Subs {
		if sb.NotReady > 0 {
			return false
		}
	}
	return true
}

// WaitWorkers waits until every subscription has an apply worker and every
// slot an active walsender (at most 30 s).
func (p *Pair) WaitWorkers(ctx context.Context) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		n, err := Query[int64](ctx, p.Pub.ConnString(Database), "SELECT count(*) FROM pg_replication_slots WHERE active")
		if err == nil && int(n) >= len(p.Subscriptions) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the subscriptions did not start streaming within 30 s; see %s/subscriber/server.log", p.Lab.Dir)
		}
		if err := sleep.For(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}

// liftLimits lifts what the pair's schema limits before the backlog drains:
// the link's rate, the cgroup CPU quota and read limits, the standby's link.
func (p *Pair) liftLimits() {
	if p.Proxy != nil {
		p.Proxy.SetRate(0)
	}
	p.readLimit.lift()
	p.limit.lift()
	p.subReadLimit.lift()
	p.liftStandbyLink()
	if p.physical != nil && p.physical.link != nil {
		p.physical.link.SetRate(0)
	}
}
