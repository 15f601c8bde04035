package audit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/lagscope/lagscope/internal/pg"
)

// StatementTimeout bounds each catalog query of a check run; catalogs of
// databases with many tables need more than an observing session's default.
const StatementTimeout = 15 * time.Second

// querier is the part of a connection the readers use (*pg.Conn has it).
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// reader reads sections of one snapshot, recording the ones it may not read.
type reader struct {
	q          querier
	major      int
	unreadable map[Section]string
}

func newReader(ctx context.Context, c *pg.Conn) (*reader, error) {
	if _, err := c.Exec(ctx, pg.Marker+"SELECT set_config('statement_timeout', $1, false)", strconv.FormatInt(StatementTimeout.Milliseconds(), 10)); err != nil {
		return nil, fmt.Errorf("%s: set statement_timeout: %w", c.Role, pg.RedactErr(err))
	}
	return &reader{q: c, major: c.Version.Major, unreadable: map[Section]string{}}, nil
}

// section runs read. A server error (no privilege, a timeout, a catalog this
// version lacks) is recorded as unreadable with what would fix it, and the run
// goes on; any other error (the connection broke) is returned.
func (r *reader) section(s Section, need string, read func() error) error {
	err := read()
	if err == nil {
		return nil
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return fmt.Errorf("read %s: %w", s, err)
	}
	switch pe.Code {
	case "42501": // insufficient_privilege
		r.unreadable[s] = "needs " + need + " (" + pe.Message + ")"
	case "57014": // query_canceled: statement_timeout
		r.unreadable[s] = fmt.Sprintf("timed out after %s (%s)", StatementTimeout, pe.Message)
	case "55P03": // lock_not_available: lock_timeout
		r.unreadable[s] = fmt.Sprintf("gave up after waiting %s for a lock a DDL statement held (%s): check again", pg.LockTimeout, pe.Message)
	default:
		r.unreadable[s] = "could not be read: " + pe.Message
	}
	return nil
}

// settingNames are the settings the checks read, on either side.
var settingNames = []string{
	"wal_level", "max_wal_senders", "max_replication_slots", "max_slot_wal_keep_size", "max_wal_size",
	"wal_keep_size", "logical_decoding_work_mem", "autovacuum_freeze_max_age", "idle_replication_slot_timeout",
	"max_logical_replication_workers", "max_sync_workers_per_subscription", "max_worker_processes",
	"max_parallel_apply_workers_per_subscription", "max_active_replication_origins", "wal_retrieve_retry_interval",
	// failover (17+): the primary's, and a standby's
	"synchronized_standby_slots", "sync_replication_slots", "hot_standby_feedback", "primary_slot_name",
	// a physical standby's, and its primary's (the standby checks)
	"hot_standby", "max_standby_streaming_delay", "max_standby_archive_delay", "recovery_min_apply_delay",
	"recovery_prefetch", "wal_receiver_status_interval", "cluster_name", "wal_compression", "full_page_writes",
	"synchronous_standby_names", "synchronous_commit", "wal_sender_timeout", "block_size",
}

// readBasics reads now(), the database and the settings.
func (r *reader) readBasics(ctx context.Context, taken *time.Time, db *string, inRecovery *bool, sec Section, set *Settings) error {
	if err := r.q.QueryRow(ctx, pg.Marker+"SELECT now(), current_database(), pg_is_in_recovery()").Scan(taken, db, inRecovery); err != nil {
		return fmt.Errorf("read server time: %w", err)
	}
	*set = Settings{}
	return r.section(sec, "pg_read_all_settings (pg_monitor)", func() error {
		rows, _ := r.q.Query(ctx, pg.Marker+"SELECT name, setting, coalesce(unit, '') FROM pg_settings WHERE name = ANY($1)", settingNames)
		var name string
		var s Setting
		_, err := pgx.ForEachRow(rows, []any{&name, &s.Value, &s.Unit}, func() error {
			(*set)[name] = s
			return nil
		})
		return err
	})
}

// tablesSQL reads the tables $1 from pg_class and pg_stat_all_tables,
// without locking them: the size is relpages (as of the last VACUUM,
// ANALYZE or CREATE INDEX) times the block size, an estimate, where
// pg_relation_size would take an AccessShareLock on each table.
const tablesSQL = pg.Marker + `SELECT c.oid, n.nspname, c.relname, c.relkind::text, c.relreplident::text,
  c.reltuples::float8, greatest(c.relpages, 0)::int8 * current_setting('block_size')::int8,
  coalesce(s.n_tup_ins, 0), coalesce(s.n_tup_upd, 0), coalesce(s.n_tup_del, 0)
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_stat_all_tables s ON s.relid = c.oid
WHERE c.oid = ANY($1) ORDER BY n.nspname, c.relname`

// readTables reads the tables with the given OIDs: kind, replica identity,
// size and DML counters, columns and indexes, and their places in f (which
// holds them: their partition parents, roots and leaf counts).
func (r *reader) readTables(ctx context.Context, oids []uint32, f forest) ([]Table, error) {
	if len(oids) == 0 {
		return nil, nil
	}
	rows, _ := r.q.Query(ctx, tablesSQL, oids)
	tables, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Table, error) {
		var t Table
		var kind, ident string
		err := row.Scan(&t.OID, &t.Schema, &t.Name, &kind, &ident, &t.Rows, &t.Bytes, &t.Inserts, &t.Updates, &t.Deletes)
		t.Kind = map[string]string{"r": "table", "p": "partitioned table"}[kind]
		if t.Kind == "" {
			t.Kind = "relation " + kind
		}
		t.ReplicaIdentity = map[string]string{"d": "default", "n": "nothing", "f": "full", "i": "index"}[ident]
		return t, err
	})
	if err != nil {
		return nil, fmt.Errorf("tables: %w", err)
	}
	f.place(tables)
	byOID := tablesByOID(tables)
	if err := r.readColumns(ctx, oids, byOID); err != nil {
		return nil, err
	}
	if err := r.readIndexes(ctx, oids, byOID); err != nil {
		return nil, err
	}
	return tables, nil
}

// tablesByOID indexes tables by OID (pointers into the slice).
func tablesByOID(tables []Table) map[uint32]*Table {
	m := make(map[uint32]*Table, len(tables))
	for i := range tables {
		m[tables[i].OID] = &tables[i]
	}
	return m
}

func (r *reader) readColumns(ctx context.Context, oids []uint32, byOID map[uint32]*Table) error {
	rows, _ := r.q.Query(ctx, pg.Marker+`SELECT a.attrelid, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, a.atthasdef OR a.attidentity <> '', a.attgenerated::text
FROM pg_attribute a WHERE a.attrelid = ANY($1) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attrelid, a.attnum`, oids)
	var rel uint32
	var c Column
	_, err := pgx.ForEachRow(rows, []any{&rel, &c.Num, &c.Name, &c.Type, &c.NotNull, &c.HasDefault, &c.Generated}, func() error {
		if t := byOID[rel]; t != nil {
			t.Columns = append(t.Columns, c)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("columns: %w", err)
	}
	return nil
}

// indexSQL reads indexes with what IsIndexUsableForReplicaIdentityFull looks
// at: access method, predicate, key columns or expressions, per-key GiST
// compare-type translation (support procedure 12), per-attribute equality of
// the stored type (a default btree or hash operator class, directly, through
// a binary-coercible cast, a domain's base type, or the polymorphic class of
// arrays, enums, ranges and records), and amgettuple.
const indexSQL = pg.Marker + `SELECT i.indrelid, i.indexrelid, ic.relname, am.amname, i.indisprimary, i.indisunique, i.indisreplident,
  i.indimmediate, i.indisvalid, i.indislive, coalesce(pg_get_expr(i.indpred, i.indrelid, true), ''),
  array(SELECT k.n::int FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(n, o) WHERE k.o <= i.indnkeyatts ORDER BY k.o),
  array(SELECT pg_get_indexdef(i.indexrelid, k, true) FROM generate_series(1, i.indnkeyatts::int) k),
  array(SELECT EXISTS (SELECT 1 FROM pg_amproc p WHERE p.amprocfamily = oc.opcfamily AND p.amprocnum = 12 AND am.amname = 'gist')
    FROM unnest(i.indclass::oid[]) WITH ORDINALITY k(opc, o) JOIN pg_opclass oc ON oc.oid = k.opc ORDER BY k.o),
  array(SELECT format_type(a.atttypid, NULL) FROM pg_attribute a WHERE a.attrelid = i.indexrelid AND a.attnum > 0 ORDER BY a.attnum),
  array(SELECT EXISTS (SELECT 1 FROM pg_opclass oc JOIN pg_am m ON m.oid = oc.opcmethod
      JOIN pg_type t ON t.oid = CASE WHEN bt.typtype = 'd' THEN bt.typbasetype ELSE bt.oid END
      WHERE m.amname IN ('btree', 'hash') AND oc.opcdefault
        AND (oc.opcintype = t.oid
          OR EXISTS (SELECT 1 FROM pg_cast c WHERE c.castsource = t.oid AND c.casttarget = oc.opcintype AND c.castmethod = 'b')
          OR (t.typcategory = 'A' AND oc.opcintype::regtype::text = 'anyarray')
          OR (t.typtype = 'e' AND oc.opcintype::regtype::text = 'anyenum')
          OR (t.typtype = 'r' AND oc.opcintype::regtype::text = 'anyrange')
          OR (t.typtype = 'm' AND oc.opcintype::regtype::text = 'anymultirange')
          OR (t.typtype = 'c' AND oc.opcintype::regtype::text = 'record')))
    FROM pg_attribute a JOIN pg_type bt ON bt.oid = a.atttypid WHERE a.attrelid = i.indexrelid AND a.attnum > 0 ORDER BY a.attnum),
  pg_index_has_property(i.indexrelid, 'index_scan'), pg_get_indexdef(i.indexrelid),
  EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid),
  (SELECT s.idx_scan FROM pg_stat_all_indexes s WHERE s.indexrelid = i.indexrelid)
FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_am am ON am.oid = ic.relam
WHERE i.indrelid = ANY($1) ORDER BY i.indrelid, i.indexrelid`

func (r *reader) readIndexes(ctx context.Context, oids []uint32, byOID map[uint32]*Table) error {
	rows, _ := r.q.Query(ctx, indexSQL, oids)
	var rel uint32
	var ix Index
	var attnums []int
	var defs, types []string
	var translate, equality []bool
	_, err := pgx.ForEachRow(rows, []any{&rel, &ix.OID, &ix.Name, &ix.AM, &ix.Primary, &ix.Unique, &ix.ReplicaIdentity,
		&ix.Immediate, &ix.Valid, &ix.Live, &ix.Predicate, &attnums, &defs, &translate, &types, &equality, &ix.GetTuple, &ix.Definition,
		&ix.Constraint, &ix.Scans}, func() error {
		t := byOID[rel]
		if t == nil {
			return nil
		}
		x := ix
		x.Keys = nil
		x.Attributes = nil
		if ix.Scans != nil {
			n := *ix.Scans
			x.Scans = &n
		}
		for k, n := range attnums {
			key := IndexKey{Attnum: n}
			if k < len(defs) {
				if n == 0 {
					key.Expr = defs[k]
				} else {
					key.Column = columnName(t, n, defs[k])
				}
			}
			if k < len(translate) {
				key.CompareTranslate = translate[k]
			}
			x.Keys = append(x.Keys, key)
		}
		for k, ty := range types {
			x.Attributes = append(x.Attributes, IndexAttribute{Type: ty, Equality: k < len(equality) && equality[k]})
		}
		t.Indexes = append(t.Indexes, x)
		return nil
	})
	if err != nil {
		return fmt.Errorf("indexes: %w", err)
	}
	return nil
}

// columnName finds column n of t (falling back to the index definition).
func columnName(t *Table, n int, def string) string {
	for _, c := range t.Columns {
		if c.Num == n {
			return c.Name
		}
	}
	return def
}

// readTriggers adds the user triggers of tables.
func (r *reader) readTriggers(ctx context.Context, tables []Table) error {
	if len(tables) == 0 {
		return nil
	}
	byOID := tablesByOID(tables)
	oids := make([]uint32, 0, len(tables))
	for _, t := range tables {
		oids = append(oids, t.OID)
	}
	rows, _ := r.q.Query(ctx, pg.Marker+`SELECT t.tgrelid, t.tgname, t.tgenabled::text, p.oid::regprocedure::text, t.tgtype::int
FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
WHERE t.tgrelid = ANY($1) AND NOT t.tgisinternal ORDER BY t.tgrelid, t.tgname`, oids)
	var rel uint32
	var tg Trigger
	var enabled string
	var typ int
	_, err := pgx.ForEachRow(rows, []any{&rel, &tg.Name, &enabled, &tg.Function, &typ}, func() error {
		t := byOID[rel]
		if t == nil {
			return nil
		}
		x := tg
		x.Enabled = map[string]string{"O": "origin", "A": "always", "R": "replica", "D": "disabled"}[enabled]
		x.Row = typ&1 != 0
		x.Events = nil
		for _, e := range []struct {
			bit  int
			name string
		}{{4, "INSERT"}, {16, "UPDATE"}, {8, "DELETE"}, {32, "TRUNCATE"}} {
			if typ&e.bit != 0 {
				x.Events = append(x.Events, e.name)
			}
		}
		t.Triggers = append(t.Triggers, x)
		return nil
	})
	if err != nil {
		return fmt.Errorf("triggers: %w", err)
	}
	return nil
}
