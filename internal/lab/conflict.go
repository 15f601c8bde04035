package lab

import (
	"context"
	"fmt"
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
