package diagnose

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/sample"
)

// ErrSlotMissing means an enabled subscription uses a slot the publisher
// does not have: its apply worker fails to start streaming until it does.
var ErrSlotMissing = errors.New("a subscription's slot is missing")

// ErrInRecovery means a server given as publisher or subscriber is a
// standby that does not play that part.
var ErrInRecovery = errors.New("the server is in recovery (a standby)")

// Preflight checks both servers (wal_level, recovery, slots, subscriptions)
// with connect and returns the slots to diagnose (nil: every logical slot).
// A session that answered goes to keep (nil: it is closed), for the window.
func Preflight(ctx context.Context, connect sample.Connector, keep func(string, *pg.Conn), o Options) ([]string, error) {
	f, err := readFacts(ctx, connect, keep, o.Subscriber != "")
	if err != nil {
		return nil, err
	}
	return f.resolve(o.Slot, o.Subscription)
}

// facts are what preflight reads from the servers, in one session each.
type facts struct {
	walLevel      string
	pubInRecovery bool
	slots         []slotFact // the publisher's logical slots, by name
	subscriber    bool       // a subscriber was given
	subInRecovery bool
	subs          []subFact // the subscriptions of the subscriber's database, by name
}

type slotFact struct {
	Name   string
	Active bool
}

type subFact struct {
	Name    string
	Slot    string // "" when the subscription has no slot (slot_name = NONE)
	Enabled bool
}

// readFacts reads the facts from the publisher and, when subscriber, the
// subscriber, each within pg.SetupTimeout.
func readFacts(ctx context.Context, connect sample.Connector, keep func(string, *pg.Conn), subscriber bool) (facts, error) {
	f := facts{subscriber: subscriber}
	if err := readSide(ctx, connect, keep, sample.Publisher, func(ctx context.Context, pub *pg.Conn) error {
		if err := pub.QueryRow(ctx, pg.Marker+"SELECT current_setting('wal_level'), pg_is_in_recovery()").Scan(&f.walLevel, &f.pubInRecovery); err != nil {
			return fmt.Errorf("read wal_level: %w", err)
		}
		var err error
		if f.slots, err = collect[slotFact](ctx, pub, "SELECT slot_name, active FROM pg_replication_slots WHERE slot_type = 'logical' ORDER BY 1"); err != nil {
			return fmt.Errorf("list slots: %w", err)
		}
		return nil
	}); err != nil || !subscriber {
		return f, err
	}
	err := readSide(ctx, connect, keep, sample.Subscriber, func(ctx context.Context, sub *pg.Conn) error {
		if err := sub.QueryRow(ctx, pg.Marker+"SELECT pg_is_in_recovery()").Scan(&f.subInRecovery); err != nil {
			return fmt.Errorf("read pg_is_in_recovery(): %w", err)
		}
		var err error
		if f.subs, err = collect[subFact](ctx, sub, `SELECT subname, coalesce(subslotname, ''), subenabled FROM pg_subscription
			WHERE subdbid = (SELECT oid FROM pg_database WHERE datname = current_database()) ORDER BY 1`); err != nil {
			return fmt.Errorf("list subscriptions: %w", err)
		}
		return nil
	})
	return f, err
}

// readSide opens a session to side (Connect bounds itself) and runs read
// on it within pg.SetupTimeout, then hands the session to keep (or closes
// it); read's error comes back as a redacted sample.SideError.
func readSide(ctx context.Context, connect sample.Connector, keep func(string, *pg.Conn), side string, read func(context.Context, *pg.Conn) error) error {
	c, err := connect(ctx, side)
	if err != nil {
		return err
	}
	rctx, cancel := pg.WithAnswerTimeout(ctx, pg.SetupTimeout)
	defer cancel()
	if err := read(rctx, c); err != nil {
		c.Close()
		return &sample.SideError{Side: side, Err: pg.RedactErr(pg.Unanswered(rctx, err))}
	}
	if keep == nil {
		c.Close()
	} else {
		keep(side, c)
	}
	return nil
}

func collect[T any](ctx context.Context, c *pg.Conn, query string) ([]T, error) {
	rows, err := c.Query(ctx, pg.Marker+query)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowToStructByPos[T])
}

// resolve checks the facts and returns the slots to diagnose (nil: every
// logical slot): slot, or the slot of subscription, when given. It is pure.
func (f facts) resolve(slot, subscription string) ([]string, error) {
	if f.walLevel != "logical" && !f.pubInRecovery {
		return nil, fmt.Errorf("publisher has wal_level = %s: logical replication needs wal_level = logical (ALTER SYSTEM SET wal_level = logical; then restart)", f.walLevel)
	}
	want := slot
	var fed []string // the slots the subscriber's enabled subscriptions stream from
	switch {
	case f.subscriber:
		if f.subInRecovery {
			return nil, fmt.Errorf("subscriber: %w: a standby runs no apply worker, its subscriptions are copies of the primary's: point --subscriber at the primary where the subscription runs", ErrInRecovery)
		}
		if len(f.subs) == 0 {
			return nil, fmt.Errorf("%w: the subscriber's database has no subscription (connect to the database where CREATE SUBSCRIPTION ran)", ErrNothingToDiagnose)
		}
		if subscription != "" {
			i := slices.IndexFunc(f.subs, func(s subFact) bool { return s.Name == subscription })
			if i < 0 {
				return nil, fmt.Errorf("subscriber: no subscription named %q in this database", subscription)
			}
			want = f.subs[i].Slot
		}
		for _, s := range f.subs {
			if s.Enabled && s.Slot != "" && (subscription == "" || s.Name == subscription) {
				fed = append(fed, s.Slot)
			}
		}
	case subscription != "":
		return nil, fmt.Errorf("--subscription needs --subscriber")
	}
	if err := f.standbyPublisher(want, fed); err != nil {
		return nil, err
	}
	for _, s := range f.subs {
		if s.Enabled && s.Slot != "" && (subscription == "" || s.Name == subscription) && !f.hasSlot(s.Slot) {
			return nil, fmt.Errorf("%w: subscription %s uses slot %q, which the publisher does not have (dropped, or this is another publisher): its apply worker fails until the slot exists; the changes since it was dropped are lost to the subscriber, so recreate the slot and resynchronise the tables, or recreate the subscription",
				ErrSlotMissing, s.Name, s.Slot)
		}
	}
	if len(f.slots) == 0 {
		return nil, fmt.Errorf("%w: the publisher has no logical replication slot (is this the publisher? CREATE SUBSCRIPTION makes one)", ErrNothingToDiagnose)
	}
	if want == "" {
		return nil, nil
	}
	if !f.hasSlot(want) {
		return nil, fmt.Errorf("%w: the publisher has no logical slot %q (it has: %v)", ErrNothingToDiagnose, want, f.slotNames())
	}
	return []string{want}, nil
}

// standbyPublisher refuses a publisher in recovery none of whose slots in
// question (want; else fed; else all) has a walsender: a standby's slots
// are copies (or, on 17+, synchronised for failover) that nothing streams
// from. On 16+ a standby can publish, and then its slot is active.
func (f facts) standbyPublisher(want string, fed []string) error {
	if !f.pubInRecovery {
		return nil
	}
	asked := fed
	if want != "" {
		asked = []string{want}
	}
	for _, s := range f.slots {
		if s.Active && (len(asked) == 0 || slices.Contains(asked, s.Name)) {
			return nil
		}
	}
	held := "no logical slot"
	if len(f.slots) > 0 {
		held = "logical slots (" + strings.Join(f.slotNames(), ", ") + ") that no walsender streams from"
	}
	return fmt.Errorf("publisher: %w with %s: point --publisher at the primary the subscription connects to (a standby publishes only on 16+, and then its slot is active)", ErrInRecovery, held)
}

func (f facts) hasSlot(name string) bool {
	return slices.ContainsFunc(f.slots, func(s slotFact) bool { return s.Name == name })
}

func (f facts) slotNames() []string {
	names := make([]string, len(f.slots))
	for i, s := range f.slots {
		names[i] = s.Name
	}
	return names
}
