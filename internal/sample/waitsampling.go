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

// historySQL reads the history after $2 (server time) one collector sweep
// a row, with the backends $1 found in it and their events, and the
// server's clock at the read, so the samples can be put on lagscope's clock.
// pg_wait_sampling versions without the sample_cpu setting (Debian 12's
// 1.1.4) write only processes that wait: a backend of $1 absent from a
// sweep was on a CPU (or runnable), as a probe with no event is; later
// versions write it with no event (sample_cpu, on by default). Every sweep
// has rows: the server's auxiliary processes wait. A backend that exited
// counts as on a CPU until the next tick drops it from $1.
const historySQL = pg.Marker + `SELECT clock_timestamp(), h.ts,
	coalesce(array_agg(h.pid) FILTER (WHERE h.pid = ANY($1)), '{}'),
	coalesce(array_agg(coalesce(h.event_type, '')) FILTER (WHERE h.pid = ANY($1)), '{}'),
	coalesce(array_agg(coalesce(h.event, '')) FILTER (WHERE h.pid = ANY($1)), '{}')
FROM pg_wait_sampling_get_history() AS h
WHERE h.ts > $2
GROUP BY h.ts
ORDER BY h.ts`

// readHistory returns the collector's sweeps taken after since (server
// time) as probes of the given backends, on lagscope's clock, and the
// server time of the newest sweep (since when there is none).
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
		var now, ts time.Time
		var got []int32
		var types, events []string
		if err := rows.Scan(&now, &ts, &got, &types, &events); err != nil {
			return nil, since, fmt.Errorf("read pg_wait_sampling history: %w", err)
		}
		// The server's clock against ours, at the read (half a round
		// trip of error).
		offset = sent.Add(time.Since(sent) / 2).Sub(now)
		newest = ts
		p := Probe{At: ts, Side: side, Waits: make([]Wait, 0, len(pids))}
		for _, pid := range pids {
			w := Wait{PID: int(pid), State: "active"}
			for i, g := range got {
				if g == pid {
					w.Type, w.Event = types[i], events[i]
					break
				}
			}
			p.Waits = append(p.Waits, w)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, since, fmt.Errorf("read pg_wait_sampling history: %w", err)
	}
	for i := range out {
		out[i].At = out[i].At.Add(offset)
	}
	return out, newest, nil
}
