package sample

import (
	"context"
	"fmt"

	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/sqltext"
)

// blockersSQL lists, for each of the backends $1 that waits on a
// heavyweight lock (wait_event_type Lock), the sessions pg_blocking_pids
// names. pg_blocking_pids takes the lock manager's partition locks, so it is
// only called for a backend in a Lock wait; otherwise the statement reads
// each backend's status once and returns no rows. Every backend is read with
// pg_stat_get_activity(pid) rather than the pg_stat_activity view, so the
// statement does not read every backend of the server each tick.
// pg_blocking_pids needs no privilege; the blockers' query, state and
// transaction and backend start need pg_read_all_stats (part of pg_monitor), which the
// sampler requires anyway (checkVisibility).
const blockersSQL = pg.Marker + `SELECT a.pid, b.pid, coalesce(b.application_name, ''),
	coalesce((SELECT r.rolname::text FROM pg_roles r WHERE r.oid = b.usesysid), ''),
	coalesce(b.backend_type, ''), coalesce(b.state, ''),
	coalesce(extract(epoch FROM now() - b.xact_start), 0)::float8,
	coalesce(left(b.query, 200), ''), coalesce(a.wait_event, ''),
	coalesce(to_char(b.backend_start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), '')
FROM unnest($1::int[]) AS p(pid)
CROSS JOIN LATERAL pg_stat_get_activity(p.pid) AS a
CROSS JOIN LATERAL unnest(CASE WHEN a.wait_event_type = 'Lock' THEN pg_blocking_pids(a.pid) END) AS bp(pid)
CROSS JOIN LATERAL pg_stat_get_activity(bp.pid) AS b
ORDER BY a.pid, b.pid`

// readBlockers returns the sessions that block any of the given replication
// workers in a Lock wait (none when no worker waits on a lock). A blocker
// that ended between pg_blocking_pids and the read of its status is left out.
func readBlockers(ctx context.Context, c *pg.Conn, pids []int32) ([]Blocker, error) {
	if len(pids) == 0 {
		return nil, nil
	}
	rows, err := c.Query(ctx, blockersSQL, pids)
	if err != nil {
		return nil, fmt.Errorf("read lock blockers: %w", err)
	}
	defer rows.Close()
	var out []Blocker
	for rows.Next() {
		var b Blocker
		if err := rows.Scan(&b.WaiterPID, &b.PID, &b.AppName, &b.User, &b.BackendType, &b.State, &b.XactAgeS, &b.Query, &b.WaitEvent, &b.BackendStart); err != nil {
			return nil, fmt.Errorf("read lock blockers: %w", err)
		}
		b.Query = sqltext.Redact(b.Query)
		out = append(out, b)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read lock blockers: %w", err)
	}
	return out, nil
}
