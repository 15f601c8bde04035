package sample

import (
	"context"
	"fmt"

	"github.com/lagscope/lagscope/internal/pg"
)

// copyProgressSQL reads pg_stat_progress_copy (14+) for the backends $1:
// a tablesync worker's initial COPY of one table. The view needs
// pg_read_all_stats (part of pg_monitor) to show other users' backends.
const copyProgressSQL = pg.Marker + `SELECT pid, coalesce(relid, 0)::bigint, coalesce(relid::regclass::text, ''),
	bytes_processed, bytes_total, tuples_processed
FROM pg_stat_progress_copy WHERE pid = ANY($1) ORDER BY pid`

// readCopyProgress returns the COPY progress of the given tablesync
// workers; none before PostgreSQL 14, which has no pg_stat_progress_copy.
func readCopyProgress(ctx context.Context, c *pg.Conn, syncPIDs []int32) ([]CopyProgress, error) {
	if len(syncPIDs) == 0 || !c.Version.AtLeast(14) {
		return nil, nil
	}
	rows, err := c.Query(ctx, copyProgressSQL, syncPIDs)
	if err != nil {
		return nil, fmt.Errorf("read pg_stat_progress_copy: %w", err)
	}
	defer rows.Close()
	var out []CopyProgress
	for rows.Next() {
		var p CopyProgress
		if err := rows.Scan(&p.PID, &p.RelID, &p.Table, &p.Bytes, &p.BytesTotal, &p.Tuples); err != nil {
			return nil, fmt.Errorf("read pg_stat_progress_copy: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read pg_stat_progress_copy: %w", err)
	}
	return out, nil
}

// syncPIDs lists the tablesync workers among the sampled backends.
func syncPIDs(keys map[int]procKey) []int32 {
	var out []int32
	for pid, k := range keys {
		if k.role == RoleTablesync {
			out = append(out, int32(pid))
		}
	}
	return out
}
