package lab

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/lsn"
)

// Drained is how fast a slot's backlog drained over a stretch of time,
// read from the publisher's positions every drainPoll.
type Drained struct {
	// Rate is the advance of the slot's progress (the further of its
	// walsender's sent_lsn and its confirmed_flush_lsn), bytes/s, over
	// Seconds.
	Rate    float64
	Seconds float64
	// Backlog is the unconfirmed WAL at the start, bytes; RanOut says it
	// fell under DrainedMB before the stretch ended (Seconds is then the
	// time it took).
	Backlog int64
	RanOut  bool
}

// drainPoll is how often Drain reads the positions.
const drainPoll = 100 * time.Millisecond

// Drain reads how fast slot drains for at most d, or until its backlog is
// drained: a backlog that a change drains in well under a diagnose window
// (an index for a FULL table) still gets a rate.
func (p *Pair) Drain(ctx context.Context, slot string, d time.Duration) (Drained, error) {
	conn, err := pgx.Connect(ctx, p.Pub.ConnString(Database))
	if err != nil {
		return Drained{}, fmt.Errorf("connect to the publisher: %w", err)
	}
	defer conn.Close(context.Background())
	const q = `SELECT pg_current_wal_lsn(), coalesce(s.confirmed_flush_lsn, '0/0'), coalesce(r.sent_lsn, '0/0')
FROM pg_replication_slots s LEFT JOIN pg_stat_replication r ON r.pid = s.active_pid WHERE s.slot_name = $1`
	read := func() (cur, progress lsn.LSN, err error) {
		var conf, sent lsn.LSN
		err = conn.QueryRow(ctx, q, slot).Scan(&cur, &conf, &sent)
		return cur, max(conf, sent), err
	}
	start := time.Now()
	cur, from, err := read()
	if err != nil {
		return Drained{}, fmt.Errorf("read slot %s: %w", slot, err)
	}
	out := Drained{Backlog: cur.Sub(from)}
	// Drained: under 1 MB left, or a tenth of a small backlog (a FULL
	// table's backlog is 1-4 MB).
	left := max(Drained16kB, min(DrainedMB, out.Backlog/10))
	to := from
	for time.Since(start) < d {
		time.Sleep(drainPoll)
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		if cur, to, err = read(); err != nil {
			return out, fmt.Errorf("read slot %s: %w", slot, err)
		}
		if cur.Sub(to) < left {
			out.RanOut = true
			break
		}
	}
	out.Seconds = time.Since(start).Seconds()
	out.Rate = float64(to.Sub(from)) / out.Seconds
	return out, nil
}
