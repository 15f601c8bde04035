package lab

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// The faults here change a pair that is already replicating, for a
// script of incidents on one pair (package incident): each is made and
// undone while the subscription runs.

// AddSubIndexes creates n of the subscriber-only indexes of SubIndexes
// on a running pair, CONCURRENTLY: the apply worker is not held while
// they are built.
func (p *Pair) AddSubIndexes(ctx context.Context, n int) error {
	for _, ddl := range subIndexDDL(n, "CREATE INDEX CONCURRENTLY") {
		if err := Exec(ctx, p.Sub.ConnString(Database), ddl); err != nil {
			return fmt.Errorf("subscriber: %w", err)
		}
	}
	return nil
}

// DropSubIndexes drops the indexes AddSubIndexes created, CONCURRENTLY.
func (p *Pair) DropSubIndexes(ctx context.Context, n int) error {
	for i := range min(n, len(subIndexCols)) {
		if err := Exec(ctx, p.Sub.ConnString(Database), "DROP INDEX CONCURRENTLY IF EXISTS "+subIndexName(i)); err != nil {
			return fmt.Errorf("subscriber: %w", err)
		}
	}
	return nil
}

// unconfirmedSQL reads the most WAL any logical slot has not confirmed.
const unconfirmedSQL = "SELECT coalesce(max(pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)), 0)::bigint FROM pg_replication_slots WHERE slot_type = 'logical'"

// WaitDrained waits until every slot's unconfirmed WAL is under left
// bytes (read every 200 ms on one session), for at most limit, and
// returns when it was.
func (p *Pair) WaitDrained(ctx context.Context, left int64, limit time.Duration) (time.Time, error) {
	conn, err := pgx.Connect(ctx, p.Pub.ConnString(Database))
	if err != nil {
		return time.Time{}, fmt.Errorf("connect to the publisher: %w", err)
	}
	defer conn.Close(context.Background())
	deadline := time.Now().Add(limit)
	for {
		var n int64
		if err := conn.QueryRow(ctx, unconfirmedSQL).Scan(&n); err != nil {
			return time.Time{}, fmt.Errorf("read the slots: %w", err)
		}
		if n < left {
			return time.Now(), nil
		}
		if time.Now().After(deadline) {
			return time.Time{}, fmt.Errorf("the backlog did not drain within %s: %d bytes unconfirmed", limit, n)
		}
		select {
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
