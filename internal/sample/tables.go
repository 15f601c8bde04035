package sample

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/pg"
)

// SourceApplyWork is the best-effort read of what the subscriber's apply
// workers did: the subscribed tables' counters and, on 18+, the workers'
// WAL (ReadError.Source).
const SourceApplyWork = "apply_work"

// ApplyWork is what the subscriber's apply workers had done by one tick,
// as cumulative counters (version 9+). A tick whose read failed has none
// (nil) and a ReadError: not read is not "nothing done".
type ApplyWork struct {
	// Tables are the subscribed tables of the observed database (those
	// in pg_subscription_rel, a partitioned one by its leaf partitions,
	// which hold the counters), in relid order; empty when there are none.
	Tables []TableStat `json:"tables"`
	// WAL is the WAL each apply and parallel apply worker has written
	// since it started (pg_stat_get_backend_wal, 18+); nil before 18.
	WAL []BackendWAL `json:"backend_wal,omitempty"`
	// IO is each apply and parallel apply worker's buffer I/O on relations
	// since it started (pg_stat_get_backend_io, 18+); nil before 18 and in
	// samples saved before it was read.
	IO []BackendIO `json:"backend_io,omitempty"`
}

// TableStat is one subscribed table's row of pg_stat_user_tables on the
// subscriber: counts since the server's statistics were last reset, of the
// apply workers' work and of every other session's.
type TableStat struct {
	RelID  int64  `json:"relid"`
	Schema string `json:"schema"`
	Name   string `json:"name"`
	// Subs are the oids of the subscriptions the table is in (Sub.OID).
	Subs []int64 `json:"subscriptions"`
	TableCounts
}

// TableCounts are a table's row and scan counters from pg_stat_user_tables.
type TableCounts struct {
	// Inserted, Updated, Deleted and HOTUpdated are rows (n_tup_ins,
	// n_tup_upd, n_tup_del, n_tup_hot_upd).
	Inserted   int64 `json:"n_tup_ins"`
	Updated    int64 `json:"n_tup_upd"`
	Deleted    int64 `json:"n_tup_del"`
	HOTUpdated int64 `json:"n_tup_hot_upd"`
	// SeqScans are sequential scans started and SeqRead the rows they
	// returned (seq_scan, seq_tup_read): an apply worker without an index
	// for REPLICA IDENTITY FULL scans twice per changed row.
	SeqScans int64 `json:"seq_scan"`
	SeqRead  int64 `json:"seq_tup_read"`
	// IdxScans are index scans and IdxFetched the rows they fetched
	// (idx_scan, idx_tup_fetch; 0 for a table without an index).
	IdxScans   int64 `json:"idx_scan"`
	IdxFetched int64 `json:"idx_tup_fetch"`
}

// Since returns the counts from a to c (c - a), and false when any went
// down: the statistics were reset in between.
func (c TableCounts) Since(a TableCounts) (TableCounts, bool) {
	d := TableCounts{Inserted: c.Inserted - a.Inserted, Updated: c.Updated - a.Updated, Deleted: c.Deleted - a.Deleted,
		HOTUpdated: c.HOTUpdated - a.HOTUpdated, SeqScans: c.SeqScans - a.SeqScans, SeqRead: c.SeqRead - a.SeqRead,
		IdxScans: c.IdxScans - a.IdxScans, IdxFetched: c.IdxFetched - a.IdxFetched}
	return d, min(d.Inserted, d.Updated, d.Deleted, d.HOTUpdated, d.SeqScans, d.SeqRead, d.IdxScans, d.IdxFetched) >= 0
}

// BackendWAL is one replication worker's WAL from pg_stat_get_backend_wal
// (18+), cumulative since it started.
type BackendWAL struct {
	PID     int   `json:"pid"`
	Records int64 `json:"wal_records"`
	FPI     int64 `json:"wal_fpi"`
	Bytes   int64 `json:"wal_bytes"`
}

// BackendIO is one replication worker's buffer I/O on relations (tables and
// indexes, every context) from pg_stat_get_backend_io (18+), cumulative
// since it started, in blocks: Reads missed shared buffers, Hits found the
// block there, Extends grew a relation, Writes flushed a dirty buffer
// (evicting it).
type BackendIO struct {
	PID     int   `json:"pid"`
	Reads   int64 `json:"reads"`
	Hits    int64 `json:"hits"`
	Extends int64 `json:"extends"`
	Writes  int64 `json:"writes"`
}

// Since returns the counts from a to b (b - a, PID 0), and false when any
// went down.
func (b BackendIO) Since(a BackendIO) (BackendIO, bool) {
	d := BackendIO{Reads: b.Reads - a.Reads, Hits: b.Hits - a.Hits, Extends: b.Extends - a.Extends, Writes: b.Writes - a.Writes}
	return d, min(d.Reads, d.Hits, d.Extends, d.Writes) >= 0
}

// Plus returns the sum of the counts (PID 0).
func (b BackendIO) Plus(o BackendIO) BackendIO {
	return BackendIO{Reads: b.Reads + o.Reads, Hits: b.Hits + o.Hits, Extends: b.Extends + o.Extends, Writes: b.Writes + o.Writes}
}

// applyTablesSQL reads pg_stat_user_tables (readable by any role) for the
// leaves of the tables in pg_subscription_rel (a per-database catalog:
// this database's subscriptions only), with the subscriptions' oids. The
// view is read in a LATERAL subquery that cannot be flattened (OFFSET 0),
// so that its relid qual reaches below its GROUP BY: one index lookup in
// pg_class per subscribed table instead of the counters of every table
// (EXPLAIN on 15.18, as a pg_monitor role). The leaves come from
// pg_inherits, walked down from each subscribed table: pg_partition_tree
// would lock every partition at every tick. A plain table is its own leaf.
const applyTablesSQL = pg.Marker + `WITH RECURSIVE tree(sub, relid, partitioned) AS (
	SELECT r.srsubid, r.srrelid, c.relkind = 'p' FROM pg_subscription_rel r JOIN pg_class c ON c.oid = r.srrelid
	UNION ALL
	SELECT t.sub, i.inhrelid, c.relkind = 'p' FROM tree t JOIN pg_inherits i ON i.inhparent = t.relid JOIN pg_class c ON c.oid = i.inhrelid
	WHERE t.partitioned)
SELECT s.relid::bigint, s.schemaname::text, s.relname::text, x.subs,
	s.n_tup_ins, s.n_tup_upd, s.n_tup_del, s.n_tup_hot_upd, coalesce(s.seq_scan, 0), coalesce(s.seq_tup_read, 0),
	coalesce(s.idx_scan, 0), coalesce(s.idx_tup_fetch, 0)
FROM (SELECT relid, array_agg(DISTINCT sub::bigint) AS subs FROM tree WHERE NOT partitioned GROUP BY 1) x
CROSS JOIN LATERAL (SELECT * FROM pg_stat_user_tables u WHERE u.relid = x.relid OFFSET 0) s
ORDER BY s.relid`

// backendWALSQL reads the WAL of the backends $1 (18+). The function needs
// no privilege (checked on 18.4 with a role without pg_monitor); for a
// backend that has ended it returns NULLs, left out.
const backendWALSQL = pg.Marker + `SELECT p.pid, w.wal_records, w.wal_fpi, w.wal_bytes::bigint
FROM unnest($1::int[]) AS p(pid) CROSS JOIN LATERAL pg_stat_get_backend_wal(p.pid) AS w
WHERE w.wal_records IS NOT NULL
ORDER BY p.pid`

// backendIOSQL reads the relation I/O of the backends $1 (18+), summed over
// the I/O contexts; a backend that has ended returns no rows.
const backendIOSQL = pg.Marker + `SELECT p.pid, sum(coalesce(io.reads, 0))::bigint, sum(coalesce(io.hits, 0))::bigint,
	sum(coalesce(io.extends, 0))::bigint, sum(coalesce(io.writes, 0))::bigint
FROM unnest($1::int[]) AS p(pid) CROSS JOIN LATERAL pg_stat_get_backend_io(p.pid) AS io
WHERE io.object = 'relation'
GROUP BY p.pid
ORDER BY p.pid`

// readApplyWork reads the subscribed tables' counters and, on 18+, the WAL
// and the relation I/O of the apply workers pids, in one round trip.
func readApplyWork(ctx context.Context, c *pg.Conn, pids []int32) (*ApplyWork, error) {
	b := &pgx.Batch{}
	b.Queue(applyTablesSQL)
	wal := c.Version.AtLeast(18) && len(pids) > 0
	if wal {
		b.Queue(backendWALSQL, pids)
		b.Queue(backendIOSQL, pids)
	}
	br := c.SendBatch(ctx, b)
	defer br.Close()
	rows, _ := br.Query()
	tables, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (TableStat, error) {
		var t TableStat
		err := r.Scan(&t.RelID, &t.Schema, &t.Name, &t.Subs, &t.Inserted, &t.Updated, &t.Deleted, &t.HOTUpdated,
			&t.SeqScans, &t.SeqRead, &t.IdxScans, &t.IdxFetched)
		return t, err
	})
	if err != nil {
		return nil, fmt.Errorf("read pg_stat_user_tables of the subscribed tables: %w", err)
	}
	w := &ApplyWork{Tables: tables}
	if w.Tables == nil {
		w.Tables = []TableStat{}
	}
	if wal {
		rows, _ := br.Query()
		w.WAL, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (BackendWAL, error) {
			var b BackendWAL
			err := r.Scan(&b.PID, &b.Records, &b.FPI, &b.Bytes)
			return b, err
		})
		if err != nil {
			return nil, fmt.Errorf("read pg_stat_get_backend_wal of the apply workers: %w", err)
		}
		rows, _ = br.Query()
		w.IO, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (BackendIO, error) {
			var b BackendIO
			err := r.Scan(&b.PID, &b.Reads, &b.Hits, &b.Extends, &b.Writes)
			return b, err
		})
		if err != nil {
			return nil, fmt.Errorf("read pg_stat_get_backend_io of the apply workers: %w", err)
		}
	}
	return w, nil
}

// applyPIDs lists the workers that apply changes (leader and parallel
// apply workers, not tablesync), in pid order.
func applyPIDs(keys map[int]procKey) []int32 {
	var out []int32
	for pid, k := range keys {
		if k.role == RoleApply || k.role == RoleParallel {
			out = append(out, int32(pid))
		}
	}
	slices.Sort(out)
	return out
}
