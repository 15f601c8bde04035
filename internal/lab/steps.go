package lab

import (
	"context"
	"fmt"
	"time"

	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/sleep"
	"github.com/lagscope/lagscope/internal/units"
)

// A Step is one thing a scenario does to its pair, in the order the
// scenario lists them: build a backlog, start a load, hold a fault, enable
// the subscriptions. A step whose effect lasts (a lock held, CPU hogs, a
// cache evictor, an open transaction, a consumer) has a Lift: the pair
// keeps the steps it started and lifts them in reverse order, once each,
// when the window ends (so the backlog can drain) or when it closes.
type Step struct {
	Name  string
	Start func(ctx context.Context, d *driver) error
	// Lift undoes Start (nil: nothing to undo); it must be safe to call on
	// a pair where Start failed half-way.
	Lift func(p *Pair)
}

// driver is what the steps of one drive share.
type driver struct {
	p    *Pair
	s    Recipe
	o    RunOptions
	lo   LoadOptions // the 16-client backlog load
	load *Load       // the load that keeps running through the window
	// bigStart is where the large transaction's WAL starts (waitReceived).
	bigStart lsn.LSN
}

// drive runs the scenario's steps; the returned Load (nil when none) is
// the one that keeps running through the window.
func (p *Pair) drive(ctx context.Context, s Recipe, o RunOptions) (*Load, error) {
	d := &driver{p: p, s: s, o: o, lo: LoadOptions{PGBench: o.PGBench, Clients: o.Clients, Rows: o.Pair.Rows, CPUs: o.Pair.PubCPUs}}
	for _, st := range s.Steps {
		if st.Lift != nil {
			p.held = append(p.held, st)
		}
		if err := st.Start(ctx, d); err != nil {
			d.load.Stop()
			return nil, fmt.Errorf("%s: %w", st.Name, err)
		}
	}
	return d.load, nil
}

// liftAll lifts every step the pair holds, newest first.
func (p *Pair) liftAll() {
	for i := len(p.held) - 1; i >= 0; i-- {
		p.held[i].Lift(p)
	}
	p.held = nil
}

// backlogTime is how long to build a backlog of share times the window,
// unless RunOptions.BacklogTime says otherwise.
func (d *driver) backlogTime(share float64) time.Duration {
	if d.o.BacklogTime > 0 {
		return d.o.BacklogTime
	}
	bt := time.Duration(share * float64(d.o.Duration))
	// A link faster than 4 MB/s drains the backlog sooner: build it in
	// proportion (at 8 MB/s a 6 s backlog of 100 MB ran down to 15 MB
	// within a 10 s window on PostgreSQL 16).
	if d.s.Link && d.o.Pair.LinkRate > 4_000_000 {
		bt = time.Duration(float64(bt) * float64(d.o.Pair.LinkRate) / 4_000_000)
	}
	return bt
}

// Backlog builds a backlog with the subscriptions disabled: the 16-client
// load for share times the window, then stopped. The share is sized so the
// backlog outlasts the window at the scenario's drain speed on a 1-core
// publisher.
func Backlog(share float64) Step {
	return Step{Name: "backlog", Start: func(ctx context.Context, d *driver) error {
		return d.buildBacklog(ctx, share, false)
	}}
}

// MoreBacklog queues the 16-client load for share times the window behind
// a state's own backlog (a Change's More), with the subscriptions still
// disabled.
func MoreBacklog(share float64) Step {
	return Step{Name: "more backlog", Start: func(ctx context.Context, d *driver) error {
		return d.runBacklog(ctx, d.lo, share, false, "queueing more backlog")
	}}
}

// BacklogUnderLoad is backlog whose load keeps running through the window:
// the publisher's CPUs stay saturated.
func BacklogUnderLoad(share float64) Step {
	return Step{Name: "backlog under load", Start: func(ctx context.Context, d *driver) error {
		return d.buildBacklog(ctx, share, true)
	}}
}

func (d *driver) buildBacklog(ctx context.Context, share float64, keep bool) error {
	return d.runBacklog(ctx, d.lo, share, keep, "building a backlog")
}

// runBacklog runs load lo for share of the window with the subscriptions
// disabled, then stops it, or keeps it running through the window (keep).
func (d *driver) runBacklog(ctx context.Context, lo LoadOptions, share float64, keep bool, what string) error {
	bt := d.backlogTime(share)
	fmt.Fprintf(d.o.Log, "lab: %s: %d clients for %s with the subscription disabled\n", what, lo.Clients, bt.Round(time.Second))
	load, err := StartLoad(ctx, d.p.Pub, lo)
	if err != nil {
		return err
	}
	if err := sleep.For(ctx, bt); err != nil || !keep {
		load.Stop()
		return err
	}
	d.load = load
	return nil
}

// FullLoad starts the 16-client load and keeps it running.
var FullLoad = Step{Name: "full load", Start: func(ctx context.Context, d *driver) (err error) {
	d.load, err = StartLoad(ctx, d.p.Pub, d.lo)
	return err
}}

// LightLoad starts a rate-limited trickle (2 clients at LightTPS) the
// subscriber keeps up with, and keeps it running.
var LightLoad = Step{Name: "light load", Start: func(ctx context.Context, d *driver) (err error) {
	light := d.lo
	light.Clients, light.TPS = 2, d.o.LightTPS
	d.load, err = StartLoad(ctx, d.p.Pub, light)
	return err
}}

// SteadyLoad starts clients running tps transactions a second in all
// (pgbench -R: a rate the publisher's core keeps up with) and keeps it
// running; it returns after warm, once the WAL rate has settled: a freshly
// loaded table's first updates write more WAL (its pages are full, so they
// are not HOT), 3.1 MB/s in the first 10 s at 600/s and 2.4-2.6 MB/s in
// every 10 s after on 15.18 and 16.14.
func SteadyLoad(clients, tps int, warm time.Duration) Step {
	return Step{Name: fmt.Sprintf("steady load (%d clients, %d transactions/s)", clients, tps), Start: func(ctx context.Context, d *driver) (err error) {
		steady := d.lo
		steady.Clients, steady.TPS = clients, tps
		if d.load, err = StartLoad(ctx, d.p.Pub, steady); err != nil {
			return err
		}
		fmt.Fprintf(d.o.Log, "lab: letting the load's WAL rate settle for %s\n", warm)
		return sleep.For(ctx, warm)
	}}
}

// BigTxn builds the backlog as one transaction that updates every row of
// hot until about changes rows changed.
func BigTxn(changes int) Step {
	return Step{Name: "large transaction", Start: func(ctx context.Context, d *driver) (err error) {
		d.bigStart, err = d.p.bigTransaction(ctx, d.o.Pair.Rows, changes, d.o.Log)
		return err
	}}
}

// WaitReceived waits until the subscriber received the large transaction
// (sent whole at its commit with streaming off): the window starts then.
var WaitReceived = Step{Name: "wait for the transaction", Start: func(ctx context.Context, d *driver) error {
	return d.p.waitReceived(ctx, d.bigStart, d.o.Log)
}}

// FullIdentityBacklog builds full-identity's backlog of single-row updates,
// sized in apply time (see fullIdentityUpdates).
func FullIdentityBacklog(share float64) Step {
	return Step{Name: "backlog of single-row updates", Start: func(ctx context.Context, d *driver) error {
		return d.p.fullIdentityBacklog(ctx, d.lo, d.backlogTime(share), d.o.Log)
	}}
}

// Enable enables the subscriptions and waits for their workers.
var Enable = Step{Name: "enable", Start: func(ctx context.Context, d *driver) error {
	fmt.Fprintf(d.o.Log, "lab: enabling %d subscription(s)\n", len(d.p.Subscriptions))
	if err := d.p.SetEnabled(ctx, true); err != nil {
		return err
	}
	return d.p.WaitWorkers(ctx)
}}

// EnableNoWait enables the subscriptions without waiting for workers that
// cannot start (their slots are lost).
var EnableNoWait = Step{Name: "enable", Start: func(ctx context.Context, d *driver) error {
	fmt.Fprintf(d.o.Log, "lab: enabling %d subscription(s)\n", len(d.p.Subscriptions))
	return d.p.SetEnabled(ctx, true)
}}

// HoldLock has a subscriber session (LockHolderApp) hold LOCK TABLE hot in
// mode in an open transaction: the apply worker waits on it.
func HoldLock(mode string) Step {
	return Step{Name: "hold a lock", Start: func(ctx context.Context, d *driver) error {
		fmt.Fprintf(d.o.Log, "lab: %s holds LOCK TABLE hot IN %s MODE on the subscriber until the window ends\n", LockHolderApp, mode)
		return d.p.HoldLock(ctx, mode)
	}, Lift: (*Pair).ReleaseLock}
}

// HoldRowLocks has a subscriber session (LockHolderApp) lock every row of
// hot with SELECT ... FOR UPDATE in an open transaction: the apply worker
// waits on its transaction id.
var HoldRowLocks = Step{Name: "hold row locks", Start: func(ctx context.Context, d *driver) error {
	fmt.Fprintf(d.o.Log, "lab: %s locks every row of hot (SELECT ... FOR UPDATE) on the subscriber until the window ends\n", LockHolderApp)
	return d.p.HoldRowLocks(ctx)
}, Lift: (*Pair).ReleaseLock}

// CPUHogs runs n CPU-bound sessions (HogApp) on the subscriber's CPU.
func CPUHogs(n int) Step {
	return Step{Name: "CPU hogs", Start: func(ctx context.Context, d *driver) error {
		fmt.Fprintf(d.o.Log, "lab: %d %s session(s) run a CPU-bound query on the subscriber's CPU until the window ends\n", n, HogApp)
		return d.p.StartHogs(ctx, n)
	}, Lift: (*Pair).StopHogs}
}

// OSHogs runs n busy-loop processes outside PostgreSQL (OSHogComm) on the
// publisher's CPUs (onPublisher) or the subscriber's.
func OSHogs(onPublisher bool, n int) Step {
	return Step{Name: "busy-loop processes", Start: func(ctx context.Context, d *driver) error {
		side, cpus := "subscriber", d.o.Pair.SubCPUs
		if onPublisher {
			side, cpus = "publisher", d.o.Pair.PubCPUs
		}
		fmt.Fprintf(d.o.Log, "lab: %d busy-loop process(es) outside PostgreSQL (%s) run on the %s's CPUs %v until the window ends\n", n, OSHogComm, side, cpus)
		return d.p.StartOSHogs(cpus, n)
	}, Lift: (*Pair).StopOSHogs}
}

// EvictHotData keeps the subscriber's table and index files out of the
// page cache (every evictEvery).
var EvictHotData = Step{Name: "evict the subscriber's data", Start: func(ctx context.Context, d *driver) error {
	fmt.Fprintf(d.o.Log, "lab: dropping the subscriber's table and index files from the page cache every %s until the window ends\n", evictEvery)
	return d.p.evictHotData(ctx)
}, Lift: func(p *Pair) { p.evictor.stop(); p.evictor = nil }}

// EvictWAL drops the publisher's WAL from the page cache once.
var EvictWAL = Step{Name: "evict the publisher's WAL", Start: func(ctx context.Context, d *driver) error {
	fmt.Fprintf(d.o.Log, "lab: dropping the publisher's WAL from the page cache\n")
	return evictWALFiles(d.p.Pub.DataDir)
}}

// HoldOpenTxn holds a publisher transaction of about openTxnChanges row
// updates open (rolled back when lifted).
var HoldOpenTxn = Step{Name: "open transaction", Start: func(ctx context.Context, d *driver) error {
	return d.p.OpenTransaction(ctx, d.o.Pair.Rows, d.o.Log)
}, Lift: (*Pair).EndOpenTransaction}

// UseConsumerSlot replaces the subscriptions with slot ConsumerSlot.
var UseConsumerSlot = Step{Name: "consumer slot", Start: func(ctx context.Context, d *driver) error {
	return d.p.useConsumerSlot(ctx)
}}

// Consume starts the lab's client consumer of kind on ConsumerSlot.
func Consume(kind string) Step {
	return Step{Name: "consumer", Start: func(ctx context.Context, d *driver) error {
		return d.p.startConsumer(ctx, kind, d.o.Log)
	}, Lift: (*Pair).stopConsumer}
}

// StandbySlot gives the publisher an absent physical standby whose slot is
// in synchronized_standby_slots (17+).
var StandbySlot = Step{Name: "absent standby slot", Start: func(ctx context.Context, d *driver) error {
	return d.p.AddAbsentStandbySlot(ctx, d.o.Log)
}}

// WithSyncStandby gives the subscriber a synchronous standby behind a link of
// rate (lifted with the pair's other limits before the drain).
func WithSyncStandby(rate units.ByteRate) Step {
	return Step{Name: "synchronous standby", Start: func(ctx context.Context, d *driver) error {
		return d.p.AddSyncStandby(ctx, rate, d.o.Log)
	}}
}

// LoseSlots checkpoints past max_slot_wal_keep_size: the slots are lost.
var LoseSlots = Step{Name: "lose the slots", Start: func(ctx context.Context, d *driver) error {
	return d.p.loseSlots(ctx, d.o.Log)
}}
