package lab

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// LockHolderApp is the application_name of the subscriber session that
// holds a table lock in the subscriber-lock scenario.
const LockHolderApp = "lab-lock-holder"

// lockHolder is a session that holds a table lock in an open transaction.
type lockHolder struct {
	conn *pgx.Conn
	PID  int
}

// HoldLock opens a session on the subscriber (application_name
// lab-lock-holder) that takes LOCK TABLE hot IN mode MODE in a transaction
// it keeps open until ReleaseLock or Close. In SHARE mode (what CREATE INDEX
// without CONCURRENTLY holds) the apply worker's first change to hot waits
// for it: a heavyweight Lock wait on the relation.
func (p *Pair) HoldLock(ctx context.Context, mode string) error {
	return p.holdWith(ctx, "LOCK TABLE hot IN "+mode+" MODE")
}

// RowLockSQL locks every row of hot, as a job that reads the rows it will
// change with SELECT ... FOR UPDATE and keeps its transaction open: the
// apply worker's UPDATE of any of them waits on the holder's transaction id.
const RowLockSQL = "SELECT count(*) FROM (SELECT id FROM hot FOR UPDATE) locked"

// HoldRowLocks opens a lock-holder session (LockHolderApp) that runs
// RowLockSQL in a transaction it keeps open until ReleaseLock or Close.
func (p *Pair) HoldRowLocks(ctx context.Context) error {
	return p.holdWith(ctx, RowLockSQL)
}

// holdWith opens the lock-holder session and runs lockSQL in a transaction
// it keeps open.
func (p *Pair) holdWith(ctx context.Context, lockSQL string) error {
	if p.lock != nil {
		return fmt.Errorf("the subscriber already holds a lab lock (pid %d)", p.lock.PID)
	}
	conn, err := pgx.Connect(ctx, p.Sub.ConnString(Database)+" application_name="+LockHolderApp)
	if err != nil {
		return fmt.Errorf("lock holder: connect to the subscriber: %w", err)
	}
	h := &lockHolder{conn: conn}
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&h.PID); err != nil {
		conn.Close(context.Background())
		return fmt.Errorf("lock holder: %w", err)
	}
	// The LOCK comes last, so it is the holder's query in pg_stat_activity.
	for _, q := range []string{"BEGIN", lockSQL} {
		if _, err := conn.Exec(ctx, q); err != nil {
			conn.Close(context.Background())
			return fmt.Errorf("lock holder: %s: %w", q, err)
		}
	}
	p.lock = h
	return nil
}

// ReleaseLock ends the lock holder's transaction and session, if any. It
// does not depend on a context: it runs on cancellation too, and closing
// the session releases the lock even if the rollback fails.
func (p *Pair) ReleaseLock() {
	if p == nil || p.lock == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p.lock.conn.Exec(ctx, "ROLLBACK")
	p.lock.conn.Close(ctx)
	p.lock = nil
}
