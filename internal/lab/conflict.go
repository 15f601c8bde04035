package lab

import (
	"context"
	"fmt"
	"time"

	"github.com/lagscope/lagscope/internal/quote"
	"github.com/lagscope/lagscope/internal/sleep"
)

// ConflictRows is how many of hot's rows (ids 1..ConflictRows) the
// conflict-missing scenario deletes from the subscriber's copy before the
// backlog that updates them is applied: each update of one of them is an
// update_missing conflict (counted on 18+, skipped silently before).
const ConflictRows = 2000

// DeleteSubRows deletes hot's first ConflictRows rows on the subscriber
// only: the sides diverge.
var DeleteSubRows = Step{Name: "delete rows on the subscriber", Start: func(ctx context.Context, d *driver) error {
	fmt.Fprintf(d.o.Log, "lab: deleting rows 1-%d of hot on the subscriber only (the publisher keeps updating them)\n", ConflictRows)
	return Exec(ctx, d.p.Sub.ConnString(Database), fmt.Sprintf("DELETE FROM hot WHERE id <= %d", ConflictRows))
}}

// TakeKey inserts a row with a key past the loaded rows into hot on the
// subscriber, then the same key on the publisher: applying the
// publisher's insert fails (insert_exists on 18+, a unique violation
// before), again at every retry.
var TakeKey = Step{Name: "take a key on the subscriber", Start: func(ctx context.Context, d *driver) error {
	key := d.o.Pair.Rows + 1
	fmt.Fprintf(d.o.Log, "lab: inserting id %d into hot on the subscriber, then on the publisher\n", key)
	ins := fmt.Sprintf("INSERT INTO hot (id, k, v, pad) VALUES (%d, 0, 0, 'conflict')", key)
	if err := Exec(ctx, d.p.Sub.ConnString(Database), ins); err != nil {
		return err
	}
	return Exec(ctx, d.p.Pub.ConnString(Database), ins)
}}

// DisableOnError sets disable_on_error = true on the pair's subscriptions
// (15+): the first apply error then disables the subscription instead of
// restarting its worker.
var DisableOnError = Step{Name: "disable on error", Start: func(ctx context.Context, d *driver) error {
	fmt.Fprintf(d.o.Log, "lab: setting disable_on_error = true on %d subscription(s)\n", len(d.p.Subscriptions))
	var stmts []string
	for _, s := range d.p.Subscriptions {
		stmts = append(stmts, quote.SQL("ALTER SUBSCRIPTION %I SET (disable_on_error = true)", s).Text)
	}
	return Exec(ctx, d.p.Sub.ConnString(Database), stmts...)
}}

// WaitDisabled waits until an apply error disabled every subscription
// (disable_on_error), 30 s at most: the window then sees the stop, not the
// error happening.
var WaitDisabled = Step{Name: "wait until disabled", Start: func(ctx context.Context, d *driver) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		n, err := Query[int64](ctx, d.p.Sub.ConnString(Database), "SELECT count(*) FROM pg_subscription WHERE subenabled")
		if err == nil && n == 0 {
			fmt.Fprintf(d.o.Log, "lab: the apply error disabled the subscription(s)\n")
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the subscriptions were not disabled by an apply error within 30 s; see %s/subscriber/server.log", d.p.Lab.Dir)
		}
		if err := sleep.For(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}}
