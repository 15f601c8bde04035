package sample

import (
	"context"
	"fmt"
	"time"

	"github.com/lagscope/lagscope/internal/pg"
)

// WaitSampling names the extension whose in-server wait-event history
// replaces lagscope's probe statements when it is installed, loaded
// (shared_preload_libraries) and readable by the role: its collector samples
// every backend every pg_wait_sampling.history_period (10 ms by default), so
// the history gives about 100 observations a second per process at the cost
// of one read a second.
const WaitSampling = "pg_wait_sampling"

// hasWaitSampling reports whether the extension's history can be read on
// this database: created here, and its library loaded at server start (the
// read fails otherwise).
func hasWaitSampling(ctx context.Context, c *pg.Conn) bool {
	var ok bool
	if err := c.QueryRow(ctx, pg.Marker+"SELECT EXISTS (SELECT FROM pg_extension WHERE extname = 'pg_wait_sampling')").Scan(&ok); err != nil || !ok {
		return false
	}
	var n int
	return c.QueryRow(ctx, pg.Marker+"SELECT count(*) FROM (SELECT 1 FROM pg_wait_sampling_get_history() LIMIT 1) h").Scan(&n) == nil
}

// historySQL reads the history of the backends $1 after $2 (server time),
// with the server's clock at the read, so the samples can be put on
// lagscope's clock. A sample with no event is a process on a CPU or
// runnable, as in the probes.
const historySQL = pg.Marker + `SELECT clock_timestamp(), h.pid, h.ts, coalesce(h.event_type, ''), coalesce(h.event, '')
FROM (SELECT 1) AS one LEFT JOIN pg_wait_sampling_get_history() AS h ON h.pid = ANY($1) AND h.ts > $2
ORDER BY h.ts`

// readHistory returns the history samples of the given backends taken after
// since (server time) as probes, one per collector sweep, on lagscope's
// clock, and the server time of the newest sample (since when there is none).
func readHistory(ctx context.Context, c *pg.Conn, side string, pids []int32, since time.Time) ([]Probe, time.Time, error) {
	sent := time.Now()
	rows, err := c.Query(ctx, historySQL, pids, since)
	if err != nil {
		return nil, since, fmt.Errorf("read pg_wait_sampling history: %w", err)
	}
	defer rows.Close()
	var out []Probe
	newest := since
	var offset time.Duration
	for rows.Next() {
		var now time.Time
		var pid *int32
		var ts *time.Time
		var w Wait
		if err := rows.Scan(&now, &pid, &ts, &w.Type, &w.Event); err != nil {
			return nil, since, fmt.Errorf("read pg_wait_sampling history: %w", err)
		}
		// The server's clock against ours, at the read (half a round
		// trip of error).
		offset = sent.Add(time.Since(sent) / 2).Sub(now)
		if pid == nil || ts == nil {
			continue
		}
		w.PID, w.State = int(*pid), "active"
		if len(out) == 0 || !ts.Equal(newest) {
			out = append(out, Probe{At: *ts, Side: side, Waits: []Wait{}})
			newest = *ts
		}
		p := &out[len(out)-1]
		p.Waits = append(p.Waits, w)
	}
	if err := rows.Err(); err != nil {
		return nil, since, fmt.Errorf("read pg_wait_sampling history: %w", err)
	}
	for i := range out {
		out[i].At = out[i].At.Add(offset)
	}
	return out, newest, nil
}
