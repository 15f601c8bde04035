package sample

import (
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/sqltext"
)

// OpenXact is a publisher session with a transaction that has written (it
// holds a transaction id): until it ends, a logical slot cannot release the
// WAL since its first change (restart_lsn), and with streaming off nothing
// of it is sent. Version 5+.
type OpenXact struct {
	Session
	// AgeS is how long its transaction has been open, seconds.
	AgeS float64 `json:"xact_age_s"`
	// XIDAge is age(backend_xid): transactions started since this one.
	XIDAge int64 `json:"xid_age"`
	// Query is the first 200 characters of its current or last statement,
	// as Blocker.Query.
	Query string `json:"query,omitempty"`
}

// openXactsSQL lists the publisher's oldest writing transactions (at most
// 3), client backends only. Query and transaction start need
// pg_read_all_stats (part of pg_monitor).
const openXactsSQL = pg.Marker + `SELECT pid, coalesce(application_name, ''), coalesce(usename::text, ''), coalesce(state, ''),
	coalesce(extract(epoch FROM now() - xact_start), 0)::float8, age(backend_xid)::bigint, coalesce(left(query, 200), '')
FROM pg_stat_activity
WHERE backend_xid IS NOT NULL AND backend_type = 'client backend'
ORDER BY age(backend_xid) DESC LIMIT 3`

// scanOpenXacts reads openXactsSQL's rows.
func scanOpenXacts(rows pgx.Rows) ([]OpenXact, error) {
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (OpenXact, error) {
		var x OpenXact
		err := r.Scan(&x.PID, &x.AppName, &x.User, &x.State, &x.AgeS, &x.XIDAge, &x.Query)
		x.Query = sqltext.Redact(x.Query)
		return x, err
	})
	if err != nil {
		return nil, fmt.Errorf("read open transactions: %w", err)
	}
	return out, nil
}
