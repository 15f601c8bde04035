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

// OpenTxnApp is the application_name of the publisher session that holds a
// large transaction open in the open-txn scenario.
const OpenTxnApp = "lab-open-txn"

// BigTxnChanges is the size of the large-transaction scenarios' transaction
// in row updates: about 30 s of apply work with 3 extra subscriber indexes
// on the lab's VM.
const BigTxnChanges = 1_200_000

// DecodingTxnChanges is big-txn-decoding's transaction size: three times
// big-txn's, so that decoding it outlasts a 10 s window with a margin
// (18.4 decoded the 1.2M-update transaction's 396 MB in about 10 s here;
// on 2026-12-03 15.18 decoded twice that, 787 MB, at 85 MB/s, finishing
// inside the window, so the state did not hold for it).
const DecodingTxnChanges = 3 * BigTxnChanges

// openTxnChanges is the open-txn scenario's transaction size: 600k row
// updates are ~90 MB of decoded changes, past the default
// logical_decoding_work_mem (64 MB), so the walsender spills them.
const openTxnChanges = 600_000

// updateAll returns statements that update every row of hot until about
// changes rows changed.
func updateAll(rows, changes int) []string {
	n := max(1, changes/rows)
	out := make([]string, n)
	for i := range out {
		out[i] = "UPDATE hot SET k = k + 1"
	}
	return out
}

// bigTransaction commits one transaction of about changes row updates on
// the publisher and returns the WAL position before it.
func (p *Pair) bigTransaction(ctx context.Context, rows, changes int, log io.Writer) (lsn.LSN, error) {
	start, err := Query[lsn.LSN](ctx, p.Pub.ConnString(Database), "SELECT "+lsn.SQL("pg_current_wal_lsn()"))
	if err != nil {
		return 0, fmt.Errorf("publisher: %w", err)
	}
	stmts := updateAll(rows, changes)
	fmt.Fprintf(log, "lab: building a backlog: one transaction updating all %d rows %d times, with the subscription disabled\n", rows, len(stmts))
	if err := Exec(ctx, p.Pub.ConnString(Database), append(append([]string{"BEGIN"}, stmts...), "COMMIT")...); err != nil {
		return 0, fmt.Errorf("publisher: large transaction: %w", err)
	}
	return start, nil
}

// waitReceived waits until the subscriber has received WAL past from: the
// walsender has decoded a transaction that starts there and sends it (at
// most 2 minutes).
func (p *Pair) waitReceived(ctx context.Context, from lsn.LSN, log io.Writer) error {
	fmt.Fprintf(log, "lab: waiting for the walsender to decode the transaction and start sending it\n")
	deadline := time.Now().Add(2 * time.Minute)
	for {
		got, err := Query[lsn.LSN](ctx, p.Sub.ConnString(Database), "SELECT "+lsn.SQL("max(received_lsn)")+" FROM pg_stat_subscription")
		if err == nil && got > from {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the subscriber received nothing of the large transaction within 2 minutes; see %s/publisher/server.log", p.Lab.Dir)
		}
		if err := sleep.For(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}

// openTxn is a publisher session holding a large transaction open.
type openTxn struct {
	conn *pgx.Conn
}

// OpenTransaction opens a session on the publisher (application_name
// lab-open-txn) that updates every row of hot until about openTxnChanges
// rows changed, in a transaction it keeps open until EndOpenTransaction or
// Close, then waits until the walsenders have decoded all of it (at most 2
// minutes).
func (p *Pair) OpenTransaction(ctx context.Context, rows int, log io.Writer) error {
	if p.open != nil {
		return fmt.Errorf("the publisher already holds a lab transaction open")
	}
	conn, err := pgx.Connect(ctx, p.Pub.ConnString(Database)+" application_name="+OpenTxnApp)
	if err != nil {
		return fmt.Errorf("open transaction: connect to the publisher: %w", err)
	}
	p.open = &openTxn{conn: conn}
	stmts := updateAll(rows, openTxnChanges)
	fmt.Fprintf(log, "lab: %s updates all %d rows %d times in one transaction and keeps it open until the window ends\n", OpenTxnApp, rows, len(stmts))
	for _, q := range append([]string{"BEGIN"}, stmts...) {
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("open transaction: %s: %w", q, err)
		}
	}
	return p.waitDecoded(ctx)
}

// waitDecoded waits until every walsender has read the WAL written so far
// (at most 2 minutes).
func (p *Pair) waitDecoded(ctx context.Context) error {
	target, err := Query[lsn.LSN](ctx, p.Pub.ConnString(Database), "SELECT "+lsn.SQL("pg_current_wal_lsn()"))
	if err != nil {
		return fmt.Errorf("publisher: %w", err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		got, err := Query[lsn.LSN](ctx, p.Pub.ConnString(Database), "SELECT "+lsn.SQL("min(sent_lsn)")+" FROM pg_stat_replication")
		if err == nil && got >= target {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the walsender did not decode the open transaction's WAL within 2 minutes")
		}
		if err := sleep.For(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}

// EndOpenTransaction rolls the open transaction back and closes its
// session, if any: nothing of it reaches the subscriber, so the pair
// drains at once. It does not depend on a context: it runs on cancellation
// too.
func (p *Pair) EndOpenTransaction() {
	if p == nil || p.open == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p.open.conn.Exec(ctx, "ROLLBACK")
	p.open.conn.Close(ctx)
	p.open = nil
}
