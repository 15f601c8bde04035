package sample

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/lagscope/lagscope/internal/pg"
)

// probeBatch is how long one probe statement samples on the server.
const probeBatch = time.Second

// waitBatchSQL samples the wait events of the backends $1 at $2 instants
// $3 seconds apart, inside one statement: each instant sleeps until its
// time, drops the transaction's copy of the backends' status
// (pg_stat_clear_snapshot) and reads each backend with
// pg_stat_get_activity(pid), without the joins of the pg_stat_activity view.
// A statement per probe cost ~0.65 ms of server CPU on the lab's VM
// (parse, bind, transaction start and end, a network round trip); an
// instant inside the statement costs a small fraction of that. t is the
// instant's offset from the statement's start in seconds; a row with a NULL
// pid stands for an instant at which none of the backends existed.
// OFFSET 0 keeps the planner from flattening the subqueries, so every
// instant is evaluated in order: sleep, clear, read. Each lateral subquery
// refers to g.n, unique per instant: a Memoize node (14+) caches a lateral
// subquery's rows by the values it refers to, and when only w.ahead was
// referred to, two instants whose ahead came out equal to the microsecond
// shared one evaluation: no sleep, and an earlier instant's time and wait
// events repeated (2 of 10 batches of 24 on 16.14). The second column is
// how late the session woke from its sleep, in ms (NULL when it did not
// sleep): on a saturated CPU a woken process waits for one.
const waitBatchSQL = pg.Marker + `SELECT z.t, CASE WHEN w.ahead > 0 THEN (z.woke - g.n * $3::float8) * 1000 END,
	a.pid, coalesce(a.wait_event_type, ''), coalesce(a.wait_event, ''), coalesce(a.state, '')
FROM generate_series(0, $2::int - 1) AS g(n)
CROSS JOIN LATERAL (
	SELECT g.n * $3::float8 - extract(epoch FROM clock_timestamp() - statement_timestamp())::float8 AS ahead
	OFFSET 0) AS w
CROSS JOIN LATERAL (
	SELECT g.n AS n, pg_sleep(greatest(0, w.ahead))::text AS slept,
		extract(epoch FROM clock_timestamp() - statement_timestamp())::float8 AS woke,
		pg_stat_clear_snapshot()::text AS cleared,
		extract(epoch FROM clock_timestamp() - statement_timestamp())::float8 AS t
	OFFSET 0) AS z
LEFT JOIN LATERAL (
	SELECT s.pid, s.wait_event_type, s.wait_event, s.state
	FROM unnest($1::int[]) AS p(pid), LATERAL pg_stat_get_activity(p.pid) AS s
	WHERE z.t IS NOT NULL AND z.n = g.n
	OFFSET 0) AS a ON true
ORDER BY g.n`

// readWaitBatch samples the wait events of the given backends n times,
// every interval, in one statement, and returns a probe per instant. The
// instants' times are the local send time plus the server's offsets, so
// they share lagscope's clock with the ticks. Without pg_read_all_stats the
// wait columns of other users' backends are NULL; the sampler checks that
// once at start (see checkVisibility).
func readWaitBatch(ctx context.Context, c *pg.Conn, side string, pids []int32, n int, interval time.Duration) ([]Probe, error) {
	sent := time.Now()
	rows, err := c.Query(ctx, waitBatchSQL, pids, n, interval.Seconds())
	if err != nil {
		return nil, fmt.Errorf("read wait events: %w", err)
	}
	defer rows.Close()
	var out []Probe
	last := math.NaN()
	for rows.Next() {
		var t float64
		var late *float64
		var pid *int32
		var w Wait
		if err := rows.Scan(&t, &late, &pid, &w.Type, &w.Event, &w.State); err != nil {
			return nil, fmt.Errorf("read wait events: %w", err)
		}
		if t != last {
			out = append(out, Probe{At: sent.Add(time.Duration(t * float64(time.Second))), Side: side, Waits: []Wait{}, LateMS: late})
			last = t
		}
		if pid != nil {
			w.PID = int(*pid)
			p := &out[len(out)-1]
			p.Waits = append(p.Waits, w)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read wait events: %w", err)
	}
	return out, nil
}

// checkVisibility reports whether this session can see other users' wait
// events (pg_read_all_stats, part of pg_monitor).
func checkVisibility(ctx context.Context, c *pg.Conn) (bool, error) {
	var ok bool
	err := c.QueryRow(ctx, pg.Marker+"SELECT pg_has_role(current_user, 'pg_read_all_stats', 'USAGE') OR "+
		"(SELECT rolsuper FROM pg_roles WHERE rolname = current_user)").Scan(&ok)
	return ok, err
}
