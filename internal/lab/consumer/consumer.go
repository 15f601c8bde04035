// Package consumer is a logical replication client that reads a pgoutput
// slot and throws the changes away, the way pg_recvlogical -f /dev/null
// does: the lab's stand-in for a consumer other than a subscription
// (Debezium, a queue feeder), optionally slow to read or lazy to confirm.
package consumer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/units"
	"golang.org/x/time/rate"
)

// Options shape how the consumer behaves.
type Options struct {
	// Rate caps how fast it reads the stream, bytes/s (0 = as fast as it
	// can): a consumer slower than the walsender, whose socket then fills.
	Rate units.ByteRate
	// ConfirmEvery is how often it confirms (flushes) what it received
	// (0 = with every status update, each second): a lazy confirmer
	// reports what it received at once (write position) and confirms it
	// only this often, as a consumer that commits its offsets on a timer.
	ConfirmEvery time.Duration
	// AppName is its application_name (default "lagscope").
	AppName string
}

// Consumer consumes a logical replication slot with pgoutput and throws the
// changes away: the publisher decodes and serialises every change, nothing
// applies it. It reports what it received with standby status updates, so
// the slot advances. Its own CPU is the caller's, not the server's.
type Consumer struct {
	conn   *pgconn.PgConn
	cancel context.CancelFunc
	done   chan struct{}
	opts   Options
	from   pglogrepl.LSN // the slot's confirmed position at the start (lazy only)

	mu         sync.Mutex
	lastCommit lsn.LSN       // highest CommitLSN received
	err        error         // why the stream ended (valid after done)
	changed    chan struct{} // closed and replaced when lastCommit advances
}

// statusInterval is how often the consumer reports its position.
const statusInterval = time.Second

// Start streams slot (a pgoutput slot that exists) with protocol version 1
// for publication. dsn is an ordinary connection string to the slot's
// database; replication=database is added.
func Start(ctx context.Context, dsn, slot, publication string, o Options) (*Consumer, error) {
	if o.AppName == "" {
		o.AppName = "lagscope"
	}
	conn, err := pgconn.Connect(ctx, dsn+" replication=database application_name="+o.AppName)
	if err != nil {
		return nil, fmt.Errorf("open replication connection: %w", err)
	}
	var from pglogrepl.LSN
	if o.ConfirmEvery > 0 {
		// A lazy consumer confirms the slot's position until its first
		// ConfirmEvery has passed (a zero flush position would read as
		// "everything written").
		if from, err = confirmedFlush(ctx, conn, slot); err != nil {
			conn.Close(context.Background())
			return nil, err
		}
	}
	err = pglogrepl.StartReplication(ctx, conn, slot, 0, pglogrepl.StartReplicationOptions{
		Mode:       pglogrepl.LogicalReplication,
		PluginArgs: []string{"proto_version '1'", fmt.Sprintf("publication_names '%s'", publication)},
	})
	if err != nil {
		conn.Close(context.Background())
		return nil, fmt.Errorf("start replication of slot %s: %w", slot, err)
	}
	lctx, cancel := context.WithCancel(context.Background())
	d := &Consumer{conn: conn, cancel: cancel, done: make(chan struct{}), changed: make(chan struct{}), opts: o, from: from}
	go func() {
		err := d.loop(lctx)
		d.mu.Lock()
		d.err = err
		d.mu.Unlock()
		close(d.done)
	}()
	return d, nil
}

// loop receives until ctx is cancelled or the stream fails.
func (d *Consumer) loop(ctx context.Context) error {
	received := d.from // end of the last whole transaction received
	flushed := d.from  // what it has confirmed
	nextStatus := time.Now().Add(statusInterval)
	nextFlush := time.Now().Add(d.opts.ConfirmEvery)
	var lim *rate.Limiter
	if d.opts.Rate > 0 {
		lim = rate.NewLimiter(rate.Limit(d.opts.Rate), max(int(d.opts.Rate)/10, 64<<10))
	}
	for {
		if ctx.Err() != nil {
			return nil
		}
		if !time.Now().Before(nextStatus) {
			if !time.Now().Before(nextFlush) {
				flushed, nextFlush = received, time.Now().Add(d.opts.ConfirmEvery)
			}
			// Without ConfirmEvery, flushed follows received; the write
			// position is always what was received.
			st := pglogrepl.StandbyStatusUpdate{WALWritePosition: received, WALFlushPosition: flushed, WALApplyPosition: flushed}
			if err := pglogrepl.SendStandbyStatusUpdate(ctx, d.conn, st); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("send standby status: %w", err)
			}
			nextStatus = time.Now().Add(statusInterval)
		}
		rctx, cancel := context.WithDeadline(ctx, nextStatus)
		msg, err := d.conn.ReceiveMessage(rctx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return nil
		case pgconn.Timeout(err):
			continue
		case err != nil:
			return fmt.Errorf("receive: %w", err)
		}
		switch m := msg.(type) {
		case *pgproto3.ErrorResponse:
			return fmt.Errorf("replication stream: %w", pgconn.ErrorResponseToPgError(m))
		case *pgproto3.CopyData:
			if len(m.Data) == 0 {
				continue
			}
			if err := d.pace(ctx, lim, len(m.Data)); err != nil {
				return nil // cancelled while pacing
			}
			switch m.Data[0] {
			case pglogrepl.PrimaryKeepaliveMessageByteID:
				k, err := pglogrepl.ParsePrimaryKeepaliveMessage(m.Data[1:])
				if err != nil {
					return fmt.Errorf("parse keepalive: %w", err)
				}
				// The keepalive's position is what the walsender has sent:
				// everything before it was received.
				if k.ServerWALEnd > received {
					received = k.ServerWALEnd
				}
				if k.ReplyRequested {
					nextStatus = time.Time{}
				}
			case pglogrepl.XLogDataByteID:
				x, err := pglogrepl.ParseXLogData(m.Data[1:])
				if err != nil {
					return fmt.Errorf("parse XLogData: %w", err)
				}
				// Only commits matter; every other message is dropped unread.
				if len(x.WALData) == 0 || x.WALData[0] != byte(pglogrepl.MessageTypeCommit) {
					continue
				}
				pm, err := pglogrepl.Parse(x.WALData)
				if err != nil {
					return fmt.Errorf("parse commit: %w", err)
				}
				c, ok := pm.(*pglogrepl.CommitMessage)
				if !ok {
					continue
				}
				if c.TransactionEndLSN > received {
					received = c.TransactionEndLSN
				}
				d.committed(lsn.LSN(c.CommitLSN))
			}
		}
	}
}

// confirmedFlush reads slot's confirmed_flush_lsn over the replication
// connection.
func confirmedFlush(ctx context.Context, conn *pgconn.PgConn, slot string) (pglogrepl.LSN, error) {
	res, err := conn.Exec(ctx, "SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '"+slot+"'").ReadAll()
	if err != nil {
		return 0, fmt.Errorf("read slot %s: %w", slot, err)
	}
	if len(res) != 1 || len(res[0].Rows) != 1 || len(res[0].Rows[0]) != 1 {
		return 0, fmt.Errorf("slot %s not found", slot)
	}
	lsn, err := pglogrepl.ParseLSN(string(res[0].Rows[0][0]))
	if err != nil {
		return 0, fmt.Errorf("slot %s: confirmed_flush_lsn: %w", slot, err)
	}
	return lsn, nil
}

// pace waits until the rate limit allows n more bytes read (no wait
// without a limit).
func (d *Consumer) pace(ctx context.Context, lim *rate.Limiter, n int) error {
	if lim == nil {
		return nil
	}
	for n > 0 {
		k := min(n, lim.Burst())
		if err := lim.WaitN(ctx, k); err != nil {
			return err
		}
		n -= k
	}
	return nil
}

// committed records a received commit and wakes the waiters.
func (d *Consumer) committed(at lsn.LSN) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if at > d.lastCommit {
		d.lastCommit = at
		close(d.changed)
		d.changed = make(chan struct{})
	}
}

// WaitCommitAfter waits until a transaction committed at or after at has
// been received, and returns when it was seen.
func (d *Consumer) WaitCommitAfter(ctx context.Context, at lsn.LSN, timeout time.Duration) (time.Time, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		d.mu.Lock()
		last, changed := d.lastCommit, d.changed
		d.mu.Unlock()
		if last >= at {
			return time.Now(), nil
		}
		select {
		case <-changed:
		case <-d.done:
			d.mu.Lock()
			err := d.err
			d.mu.Unlock()
			if err == nil {
				err = errors.New("stopped")
			}
			return time.Time{}, fmt.Errorf("decode consumer ended before the marker arrived: %w", err)
		case <-deadline.C:
			return time.Time{}, fmt.Errorf("decode consumer did not receive the marker (commit after %s) within %s; last commit received %s", at, timeout, last)
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		}
	}
}

// Close stops the stream and closes the connection.
func (d *Consumer) Close() error {
	d.cancel()
	<-d.done
	d.conn.Close(context.Background())
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.err
}
