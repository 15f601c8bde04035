package reproduce

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// devNull consumes a logical replication slot with pgoutput and throws the
// changes away, the way seed 001 ran pg_recvlogical -f /dev/null: the
// publisher decodes and serialises every change, nothing applies it. It
// confirms what it received with standby status updates, so the slot
// advances. Its own CPU is lagscope's, not the server's.
type devNull struct {
	conn   *pgconn.PgConn
	cancel context.CancelFunc
	done   chan struct{}

	mu         sync.Mutex
	lastCommit pglogrepl.LSN // highest CommitLSN received
	err        error         // why the stream ended (valid after done)
	changed    chan struct{} // closed and replaced when lastCommit advances
}

// devNullStatusInterval is how often the consumer confirms its position.
const devNullStatusInterval = time.Second

// startDevNull starts streaming slot (a pgoutput slot that exists) with
// protocol version 1 for publication. dsn is an ordinary connection string
// to the slot's database; replication=database is added.
func startDevNull(ctx context.Context, dsn, slot, publication string) (*devNull, error) {
	conn, err := pgconn.Connect(ctx, dsn+" replication=database application_name=lagscope")
	if err != nil {
		return nil, fmt.Errorf("open replication connection: %w", err)
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
	d := &devNull{conn: conn, cancel: cancel, done: make(chan struct{}), changed: make(chan struct{})}
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
func (d *devNull) loop(ctx context.Context) error {
	var confirmed pglogrepl.LSN // what we may confirm: end of the last whole transaction
	nextStatus := time.Now().Add(devNullStatusInterval)
	for {
		if ctx.Err() != nil {
			return nil
		}
		if !time.Now().Before(nextStatus) {
			if err := pglogrepl.SendStandbyStatusUpdate(ctx, d.conn, pglogrepl.StandbyStatusUpdate{WALWritePosition: confirmed}); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("send standby status: %w", err)
			}
			nextStatus = time.Now().Add(devNullStatusInterval)
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
			switch m.Data[0] {
			case pglogrepl.PrimaryKeepaliveMessageByteID:
				k, err := pglogrepl.ParsePrimaryKeepaliveMessage(m.Data[1:])
				if err != nil {
					return fmt.Errorf("parse keepalive: %w", err)
				}
				// The keepalive's position is what the walsender has sent:
				// everything before it was received.
				if k.ServerWALEnd > confirmed {
					confirmed = k.ServerWALEnd
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
				if c.TransactionEndLSN > confirmed {
					confirmed = c.TransactionEndLSN
				}
				d.committed(c.CommitLSN)
			}
		}
	}
}

// committed records a received commit and wakes the waiters.
func (d *devNull) committed(lsn pglogrepl.LSN) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if lsn > d.lastCommit {
		d.lastCommit = lsn
		close(d.changed)
		d.changed = make(chan struct{})
	}
}

// waitCommitAfter waits until a transaction committed at or after lsn has
// been received, and returns when it was seen.
func (d *devNull) waitCommitAfter(ctx context.Context, lsn pglogrepl.LSN, timeout time.Duration) (time.Time, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		d.mu.Lock()
		last, changed := d.lastCommit, d.changed
		d.mu.Unlock()
		if last >= lsn {
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
			return time.Time{}, fmt.Errorf("decode consumer did not receive the marker (commit after %s) within %s; last commit received %s", lsn, timeout, last)
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		}
	}
}

// close stops the stream and closes the connection.
func (d *devNull) close() error {
	d.cancel()
	<-d.done
	d.conn.Close(context.Background())
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.err
}
