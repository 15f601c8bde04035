package sample

import (
	"context"
	"fmt"

	"github.com/lagscope/lagscope/internal/pg"
)

// readWaits reads the wait events of the given backends. Without
// pg_read_all_stats the wait columns of other users' backends are NULL; the
// sampler checks that once at start (see checkVisibility).
func readWaits(ctx context.Context, c *pg.Conn, pids []int32) ([]Wait, error) {
	// pg_stat_get_activity(pid) reads one backend's entry without the joins
	// of the pg_stat_activity view: the probe runs many times a second.
	rows, err := c.Query(ctx, pg.Marker+"SELECT a.pid, coalesce(a.wait_event_type, ''), coalesce(a.wait_event, ''), coalesce(a.state, '') "+
		"FROM unnest($1::int[]) AS p(pid), LATERAL pg_stat_get_activity(p.pid) AS a", pids)
	if err != nil {
		return nil, fmt.Errorf("read wait events: %w", err)
	}
	defer rows.Close()
	var out []Wait
	for rows.Next() {
		var w Wait
		if err := rows.Scan(&w.PID, &w.Type, &w.Event, &w.State); err != nil {
			return nil, fmt.Errorf("read wait events: %w", err)
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// checkVisibility reports whether this session can see other users' wait
// events (pg_read_all_stats, part of pg_monitor).
func checkVisibility(ctx context.Context, c *pg.Conn) (bool, error) {
	var ok bool
	err := c.QueryRow(ctx, pg.Marker+"SELECT pg_has_role(current_user, 'pg_read_all_stats', 'USAGE') OR "+
		"(SELECT rolsuper FROM pg_roles WHERE rolname = current_user)").Scan(&ok)
	return ok, err
}
