package lab

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/lagscope/lagscope/internal/quote"
)

// StandbyDecodingSlot is the logical slot DecodeOnStandby makes on the
// standby (test_decoding).
const StandbyDecodingSlot = "lab_standby_decoding"

// standbyDecoder is a replication connection to the standby streaming
// its logical slot: a walsender on the standby decodes it.
type standbyDecoder struct {
	conn   *pgconn.PgConn
	cancel context.CancelFunc
	done   chan struct{}
}

// DecodeOnStandby (16+) makes a logical slot on the standby and streams
// it over a replication connection of the lab's (as a subscriber's apply
// worker would), so that a walsender on the standby decodes the WAL the
// standby replays: with replay paused it waits for WAL
// (WalSenderWaitForWAL). A slot made on a standby waits for a
// running-xacts record from the primary: the publisher logs one
// (pg_log_standby_snapshot) until the slot exists.
var DecodeOnStandby = Step{Name: "decode on the standby", Start: func(ctx context.Context, d *driver) error {
	s := d.standby()
	fmt.Fprintf(d.o.Log, "lab: a logical slot on the standby (%s, test_decoding), streamed by a replication connection\n", StandbyDecodingSlot)
	made := make(chan error, 1)
	go func() {
		made <- Exec(ctx, s.ConnString(), quote.SQL("SELECT pg_create_logical_replication_slot(%L, 'test_decoding')", StandbyDecodingSlot).Text)
	}()
	var err error
	for waiting := true; waiting; {
		select {
		case err = <-made:
			waiting = false
		case <-time.After(200 * time.Millisecond):
			if e := Exec(ctx, d.p.Pub.ConnString(Database), "SELECT pg_log_standby_snapshot()"); e != nil {
				return fmt.Errorf("standby decoding: %w", e)
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if err != nil {
		return fmt.Errorf("standby decoding: create the slot: %w", err)
	}
	conn, err := pgconn.Connect(ctx, s.ConnString()+" replication=database application_name=lab_standby_decoder")
	if err != nil {
		return fmt.Errorf("standby decoding: %w", err)
	}
	start := quote.SQL("START_REPLICATION SLOT %I LOGICAL 0/0", StandbyDecodingSlot).Text
	conn.Frontend().Send(&pgproto3.Query{String: start})
	if err := conn.Frontend().Flush(); err != nil {
		conn.Close(ctx)
		return fmt.Errorf("standby decoding: %w", err)
	}
	rctx, cancel := context.WithCancel(context.Background())
	dec := &standbyDecoder{conn: conn, cancel: cancel, done: make(chan struct{})}
	s.decoder = dec
	go dec.consume(rctx)
	return nil
}, Lift: func(p *Pair) { p.physical.stopDecoding() }}

// consume reads what the walsender sends until ctx ends, answering its
// keepalives with the position it reported (the slot then confirms it).
func (dec *standbyDecoder) consume(ctx context.Context) {
	defer close(dec.done)
	var end uint64
	for ctx.Err() == nil {
		msg, err := dec.conn.ReceiveMessage(ctx)
		if err != nil {
			return
		}
		cd, ok := msg.(*pgproto3.CopyData)
		if !ok || len(cd.Data) == 0 {
			if _, isErr := msg.(*pgproto3.ErrorResponse); isErr {
				return
			}
			continue
		}
		switch cd.Data[0] {
		case 'w':
			if len(cd.Data) >= 17 {
				end = max(end, binary.BigEndian.Uint64(cd.Data[9:17]))
			}
		case 'k':
			if len(cd.Data) >= 18 {
				end = max(end, binary.BigEndian.Uint64(cd.Data[1:9]))
				if cd.Data[17] == 1 {
					dec.reply(end)
				}
			}
		}
	}
}

// reply sends a standby status update: written, flushed and applied up to
// end.
func (dec *standbyDecoder) reply(end uint64) {
	b := make([]byte, 34)
	b[0] = 'r'
	binary.BigEndian.PutUint64(b[1:], end)
	binary.BigEndian.PutUint64(b[9:], end)
	binary.BigEndian.PutUint64(b[17:], end)
	binary.BigEndian.PutUint64(b[25:], uint64(time.Now().UnixMicro()-946684800000000))
	dec.conn.Frontend().Send(&pgproto3.CopyData{Data: b})
	_ = dec.conn.Frontend().Flush()
}

// stopDecoding ends the replication connection.
func (s *Standby) stopDecoding() {
	if s == nil || s.decoder == nil {
		return
	}
	s.decoder.cancel()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = s.decoder.conn.Close(ctx)
	select {
	case <-s.decoder.done:
	case <-ctx.Done():
	}
	s.decoder = nil
}
