package lab

import (
	"context"
	"fmt"
	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/sleep"
	"io"
	"time"

	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/proc"
	"github.com/lagscope/lagscope/internal/sample"
)

// RunOptions control one scenario run.
type RunOptions struct {
	Pair     PairOptions
	PGBench  string        // path to pgbench
	Clients  int           // pgbench clients (seed 000: 16)
	Duration time.Duration // measurement window (default 30 s)
	// BacklogTime is how long the load runs with the subscriptions disabled
	// before they are enabled (0 = the scenario's default share of Duration).
	BacklogTime time.Duration
	// LightTPS is the caught-up scenario's transaction rate.
	LightTPS int
	Tick     time.Duration // position/CPU interval (seed: 2 s)
	ProbeHz  float64       // wait-event probe rate (seed: 4 Hz)
	// Verify drains the backlog after measuring (when the scenario drains)
	// and compares row count and sum(k) on both sides.
	Verify bool
	// During, if set, runs while the scenario holds, alongside the lab's own
	// measurement (lab run --diagnose uses it); its result is returned in
	// Result.During.
	During func(ctx context.Context, p *Pair) (any, error)
	// Inspect, if set, runs once the window ends, before the load stops and
	// the backlog drains; its result is returned in Result.Inspected.
	Inspect func(ctx context.Context, p *Pair) (any, error)
	Log     io.Writer
}

func (o *RunOptions) defaults() {
	if o.Clients <= 0 {
		o.Clients = 16
	}
	if o.Duration <= 0 {
		o.Duration = 30 * time.Second
	}
	if o.Tick <= 0 {
		o.Tick = 2 * time.Second
	}
	if o.ProbeHz <= 0 {
		o.ProbeHz = 10
	}
	if o.LightTPS <= 0 {
		o.LightTPS = 200
	}
	if o.Pair.Rows <= 0 {
		o.Pair.Rows = 1_000_000
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	o.Pair.Log = o.Log
}

// backlogShare is how long the backlog is built, as a share of the
// measurement window, per scenario: long enough that the backlog outlasts
// the window at the scenario's drain speed on a 1-core publisher.
func backlogShare(s Scenario) float64 {
	switch {
	case s.FullIdentity:
		// Apply time, not load time: see fullIdentityUpdates.
		return 2
	case s.HoldLock != "":
		// Nothing drains while the lock is held: a modest backlog is
		// enough to see, and drains quickly once the lock goes.
		return 0.5
	case s.RowFilter != "":
		return 1.5
	case s.Link:
		return 0.6
	case s.During == LoadFull:
		return 0.3
	case s.Consumer == ConsumerSlow:
		// ~65 MB: 30 s or more at the slow consumer's 2 MB/s, so the
		// backlog outlasts the window with a margin (with ~25 MB, 2 runs
		// of 3 on 16.14 read it down to a median of 10-14 MB within the
		// window: under CaughtUpLag, caught up).
		return 0.8
	case s.SubReadLimit >= 100_000_000:
		// A fast disk: the apply worker runs at about half apply-bound's
		// speed, so apply-bound's backlog (on 16.14 the slow-disk share
		// of 0.3, ~25 MB, once drained to 4 kB within the window).
		return 1.2
	case s.Consumer != "" || s.SubReadLimit > 0:
		// ~25 MB: longer than the window for an apply worker reading
		// pages at 4 MB/s; the lazy confirmer reads it at once.
		return 0.3
	case s.PubReadLimit > 0:
		// ~45 MB at the lab's default 16 clients: 20 s or more to read
		// at 2 MB/s.
		return 0.5
	case s.SyncStandby > 0:
		// The subscriber applies about 1 MB/s behind its standby's 1 MB/s
		// link: a short backlog outlasts the window and drains fast once
		// the link is lifted.
		return 0.3
	case s.SubIndexes > 0:
		// The apply worker is slower than the load here: a shorter backlog
		// still outlasts the window and drains sooner afterwards.
		return 1.2
	default:
		// pgbench and the publisher share one core here: generation runs
		// below the apply rate, so build for longer than the window.
		return 1.6
	}
}

// Run builds a pair, drives it into the scenario's state, measures it and
// removes it. The pair is removed on every path out, including cancellation.
func Run(ctx context.Context, s Scenario, o RunOptions) (*Result, error) {
	o.defaults()
	s.pairOptions(&o.Pair)
	o.Pair.Purpose = "lab run " + s.Name
	p, err := NewPair(ctx, o.Pair)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	return measureScenario(ctx, p, s, o)
}

// pairOptions sets what the scenario decides about the pair. A link the
// caller asked for stays (at its rate), for tests that break it.
func (s Scenario) pairOptions(o *PairOptions) {
	o.Layout, o.RowFilter, o.SubIndexes = s.Layout, s.RowFilter, s.SubIndexes
	o.Link = o.Link || s.Link
	if s.FullIdentity {
		o.ReplicaIdentityFull, o.SubNoKey = true, true
	}
	o.CopyData = s.InitialSync
	o.SubCPULimit = s.SubCPULimit
	o.PubReadLimit = s.PubReadLimit
	if s.SubReadLimit > 0 {
		o.SubReadLimit = s.SubReadLimit
		o.SubSettings = withSetting(o.SubSettings, "shared_buffers", "2MB")
	}
	if s.LoseSlot {
		o.PubSettings = withSetting(o.PubSettings, "max_slot_wal_keep_size", lostSlotKeep)
	}
	if s.Streaming != "" {
		o.Streaming = s.Streaming
	}
	o.MinMajor, o.Needs = s.MinMajor, s.Needs
	if s.Streaming == "parallel" {
		// Stream the transaction from its first 64 kB instead of 64 MB, so
		// the parallel worker starts applying at once.
		o.PubSettings = withSetting(o.PubSettings, "logical_decoding_work_mem", "64kB")
	}
}

// withSetting returns m (or a new map) with name = value.
func withSetting(m map[string]string, name, value string) map[string]string {
	out := map[string]string{name: value}
	for k, v := range m {
		if k != name {
			out[k] = v
		}
	}
	return out
}

// Up builds a pair and drives it into the scenario's state; the returned
// Load (nil when none) keeps running until stopped. Close the pair when done.
func Up(ctx context.Context, s Scenario, o RunOptions) (*Pair, *Load, error) {
	o.defaults()
	s.pairOptions(&o.Pair)
	o.Pair.Purpose = "lab up " + s.Name
	p, err := NewPair(ctx, o.Pair)
	if err != nil {
		return nil, nil, err
	}
	load, err := p.drive(ctx, s, o)
	if err != nil {
		p.Close()
		return nil, nil, err
	}
	return p, load, nil
}

// drive builds the backlog, starts the load the scenario keeps running and
// enables the subscriptions (unless the scenario keeps them disabled).
func (p *Pair) drive(ctx context.Context, s Scenario, o RunOptions) (load *Load, err error) {
	lo := LoadOptions{PGBench: o.PGBench, Clients: o.Clients, Rows: o.Pair.Rows, CPUs: o.Pair.PubCPUs}
	defer func() {
		if err != nil {
			load.Stop()
			load = nil
		}
	}()
	if s.Consumer != "" {
		if err = p.useConsumerSlot(ctx); err != nil {
			return nil, err
		}
	}
	if s.StandbySlot {
		if err = p.AddAbsentStandbySlot(ctx, o.Log); err != nil {
			return nil, err
		}
	}
	if s.SyncStandby > 0 {
		if err = p.AddSyncStandby(ctx, s.SyncStandby, o.Log); err != nil {
			return nil, err
		}
	}
	var bigStart lsn.LSN
	if s.Backlog && s.BigTxn {
		changes := bigTxnChanges
		if s.Decoding {
			changes = decodingTxnChanges
		}
		if bigStart, err = p.bigTransaction(ctx, o.Pair.Rows, changes, o.Log); err != nil {
			return nil, err
		}
	} else if s.Backlog && s.FullIdentity {
		bt := o.BacklogTime
		if bt <= 0 {
			bt = time.Duration(backlogShare(s) * float64(o.Duration))
		}
		if err = p.fullIdentityBacklog(ctx, lo, bt, o.Log); err != nil {
			return nil, err
		}
	} else if s.Backlog {
		bt := o.BacklogTime
		if bt <= 0 {
			bt = time.Duration(backlogShare(s) * float64(o.Duration))
			// A link faster than 4 MB/s drains the backlog sooner: build
			// it in proportion (at 8 MB/s a 6 s backlog of 100 MB ran
			// down to 15 MB within a 10 s window on PostgreSQL 16).
			if s.Link && o.Pair.LinkRate > 4_000_000 {
				bt = time.Duration(float64(bt) * float64(o.Pair.LinkRate) / 4_000_000)
			}
		}
		fmt.Fprintf(o.Log, "lab: building a backlog: %d clients for %s with the subscription disabled\n", o.Clients, bt.Round(time.Second))
		if load, err = StartLoad(ctx, p.Pub, lo); err != nil {
			return nil, err
		}
		if err = sleep.For(ctx, bt); err != nil {
			return load, err
		}
		if s.During != LoadFull {
			load.Stop()
			load = nil
		}
	} else if s.During == LoadFull {
		if load, err = StartLoad(ctx, p.Pub, lo); err != nil {
			return nil, err
		}
	}
	if s.During == LoadLight {
		light := lo
		light.Clients, light.TPS = 2, o.LightTPS
		if load, err = StartLoad(ctx, p.Pub, light); err != nil {
			return nil, err
		}
	}
	if s.LoseSlot {
		if err = p.loseSlots(ctx, o.Log); err != nil {
			return load, err
		}
	}
	if s.PubReadLimit > 0 {
		fmt.Fprintf(o.Log, "lab: dropping the publisher's WAL from the page cache\n")
		if err = evictWAL(p.Pub.DataDir); err != nil {
			return load, err
		}
	}
	if s.SubHogs > 0 {
		fmt.Fprintf(o.Log, "lab: %d %s session(s) run a CPU-bound query on the subscriber's CPU until the window ends\n", s.SubHogs, HogApp)
		if err = p.StartHogs(ctx, s.SubHogs); err != nil {
			return load, err
		}
	}
	if s.HoldLock != "" {
		fmt.Fprintf(o.Log, "lab: %s holds LOCK TABLE hot IN %s MODE on the subscriber until the window ends\n", LockHolderApp, s.HoldLock)
		if err = p.HoldLock(ctx, s.HoldLock); err != nil {
			return load, err
		}
	}
	if s.Consumer != "" {
		if err = p.startConsumer(ctx, s.Consumer, o.Log); err != nil {
			return load, err
		}
	} else if !s.KeepDisabled {
		fmt.Fprintf(o.Log, "lab: enabling %d subscription(s)\n", len(p.Subscriptions))
		if err = p.SetEnabled(ctx, true); err != nil {
			return load, err
		}
		if !s.LoseSlot {
			if err = p.waitWorkers(ctx); err != nil {
				return load, err
			}
		}
	}
	if s.SubReadLimit > 0 {
		fmt.Fprintf(o.Log, "lab: dropping the subscriber's table and index files from the page cache every %s until the window ends\n", evictEvery)
		if err = p.evictHotData(ctx); err != nil {
			return load, err
		}
	}
	// Sent whole at its commit: measure once the apply side has it.
	if s.BigTxn && s.Streaming == "off" && !s.Decoding {
		if err = p.waitReceived(ctx, bigStart, o.Log); err != nil {
			return load, err
		}
	}
	if s.OpenTxn {
		if err = p.OpenTransaction(ctx, o.Pair.Rows, o.Log); err != nil {
			return load, err
		}
	}
	return load, nil
}

func measureScenario(ctx context.Context, p *Pair, s Scenario, o RunOptions) (*Result, error) {
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
	var linkStart linkSnap
	if p.Proxy != nil {
		linkStart = snapLink(p)
	}
	rec, err := p.sample(ctx, o, s)
	if err != nil {
		return nil, err
	}
	res := &Result{Scenario: s.Name, Layout: string(s.Layout)}
	res.fill(rec, p, s, o)
	if p.Proxy != nil {
		res.Link = linkResult(linkStart, snapLink(p), p.Opts.LinkRate)
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
	load.Stop()
	load = nil
	p.ReleaseLock() // the window is over: let the backlog drain
	p.StopHogs()
	p.EndOpenTransaction()
	p.stopConsumer()
	p.evictor.stop()
	p.evictor = nil
	if s.Drains && o.Verify && ctx.Err() == nil {
		if p.Proxy != nil {
			p.Proxy.SetRate(0)
		}
		p.readLimit.lift()
		p.limit.lift()
		p.subReadLimit.lift()
		p.liftStandbyLink()
		res.verify(ctx, p, drainTimeout(o.Duration), o.Log)
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
func (p *Pair) sample(ctx context.Context, o RunOptions, s Scenario) (*sample.Recording, error) {
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
	// An open transaction's slot confirms all it was sent, and a
	// keepalive can carry a large transaction's past it: both look
	// drained from the start.
	if s.During == LoadNone && !s.KeepDisabled && !s.OpenTxn && !(s.BigTxn && s.Streaming == "off") {
		left := s.drainedBelow()
		so.Until = func(t sample.Tick) bool { return drained(t, left) }
	}
	return sample.Run(ctx, connect, so)
}

// drainedBelow is the unconfirmed WAL (bytes) under which the scenario's
// backlog counts as drained: 1 MB, or 16 kB for full-identity, whose whole
// backlog is 1-4 MB (about 40 updates; 1.4 s of apply at the default 1M
// rows).
func (s Scenario) drainedBelow() int64 {
	if s.FullIdentity {
		return 16 << 10
	}
	return 1 << 20
}

// drained reports whether every slot has confirmed all WAL but the last
// left bytes.
func drained(t sample.Tick, left int64) bool {
	if !t.PubOK || len(t.Slots) == 0 {
		return false
	}
	for _, sl := range t.Slots {
		if int64(t.CurrentLSN)-int64(sl.ConfirmedFlush) > left {
			return false
		}
	}
	// A table still being copied is not drained either (the initial-sync
	// scenario generates no WAL while its tablesync worker copies).
	for _, sb := range t.Subs {
		if sb.NotReady > 0 {
			return false
		}
	}
	return true
}

// waitWorkers waits until every subscription has an apply worker and every
// slot an active walsender (at most 30 s).
func (p *Pair) waitWorkers(ctx context.Context) error {
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
