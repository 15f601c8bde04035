package audit

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/pg"
)

// ReadPublisher reads the publisher's snapshot over c: settings, slots and
// their statistics, walsenders, publications and the tables they publish.
// A part the role may not read is recorded in Unreadable; the error is only
// for a broken connection.
func ReadPublisher(ctx context.Context, c *pg.Conn) (*Publisher, error) {
	r, err := newReader(ctx, c)
	if err != nil {
		return nil, err
	}
	p := &Publisher{Version: c.Version}
	if err := r.readBasics(ctx, &p.Taken, &p.Database, &p.InRecovery, PubSettings, &p.Settings); err != nil {
		return nil, fmt.Errorf("publisher: %w", err)
	}
	steps := []struct {
		s    Section
		need string
		read func() error
	}{
		{PubSlots, "SELECT on pg_replication_slots", func() error { return r.readSlots(ctx, p) }},
		{PubSlotStats, "SELECT on pg_stat_replication_slots", func() error { return r.readSlotStats(ctx, p) }},
		{PubWalsenders, "SELECT on pg_stat_replication", func() error {
			return r.q.QueryRow(ctx, pg.Marker+"SELECT count(*) FROM pg_stat_replication").Scan(&p.Walsenders)
		}},
		{PubPublications, "SELECT on pg_publication and pg_publication_tables", func() error { return r.readPublications(ctx, p) }},
	}
	for _, st := range steps {
		if st.s == PubSlotStats && r.major < 14 {
			continue // pg_stat_replication_slots is new in 14
		}
		if err := r.section(st.s, st.need, st.read); err != nil {
			return nil, fmt.Errorf("publisher: %w", err)
		}
	}
	if err := r.section(PubTables, "SELECT on pg_class, pg_index and pg_attribute", func() error {
		return r.readPublishedTables(ctx, p)
	}); err != nil {
		return nil, fmt.Errorf("publisher: %w", err)
	}
	if len(r.unreadable) > 0 {
		p.Unreadable = r.unreadable
	}
	return p, nil
}

func (r *reader) readSlots(ctx context.Context, p *Publisher) error {
	current := lsn.SQL("pg_current_wal_lsn()")
	if p.InRecovery {
		current = lsn.SQL("pg_last_wal_replay_lsn()")
	}
	if err := r.q.QueryRow(ctx, pg.Marker+"SELECT "+current).Scan(&p.CurrentLSN); err != nil {
		return err
	}
	extra := "NULL::timestamptz, '', false, false"
	if r.major >= 17 {
		extra = "inactive_since, coalesce(invalidation_reason, ''), failover, synced"
	}
	rows, _ := r.q.Query(ctx, pg.Marker+`SELECT slot_name, coalesce(plugin, ''), slot_type, coalesce(database, ''), temporary, active,
  coalesce(age(xmin), -1), coalesce(age(catalog_xmin), -1), `+lsn.SQL("restart_lsn")+`, `+lsn.SQL("confirmed_flush_lsn")+`,
  coalesce(wal_status, ''), coalesce(safe_wal_size, -1), `+extra+`
FROM pg_replication_slots ORDER BY slot_name`)
	slots, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Slot, error) {
		var s Slot
		var since *time.Time
		err := row.Scan(&s.Name, &s.Plugin, &s.Type, &s.Database, &s.Temporary, &s.Active, &s.XminAge, &s.CatalogXminAge,
			&s.RestartLSN, &s.ConfirmedFlushLSN, &s.WALStatus, &s.SafeWALSize, &since, &s.InvalidationReason, &s.Failover, &s.Synced)
		s.InactiveSince = since
		return s, err
	})
	p.Slots = slots
	return err
}

func (r *reader) readSlotStats(ctx context.Context, p *Publisher) error {
	rows, _ := r.q.Query(ctx, pg.Marker+`SELECT slot_name, spill_txns, spill_count, spill_bytes, stream_txns, stream_count,
  stream_bytes, total_txns, total_bytes, stats_reset FROM pg_stat_replication_slots`)
	var name string
	var st SlotStats
	var reset *time.Time
	_, err := pgx.ForEachRow(rows, []any{&name, &st.SpillTxns, &st.SpillCount, &st.SpillBytes, &st.StreamTxns, &st.StreamCount,
		&st.StreamBytes, &st.TotalTxns, &st.TotalBytes, &reset}, func() error {
		for i := range p.Slots {
			if p.Slots[i].Name == name {
				s := st
				s.StatsReset = reset
				p.Slots[i].Stats = &s
			}
		}
		return nil
	})
	return err
}

func (r *reader) readPublications(ctx context.Context, p *Publisher) error {
	rows, _ := r.q.Query(ctx, pg.Marker+`SELECT pubname, puballtables, pubinsert, pubupdate, pubdelete, pubtruncate, pubviaroot
FROM pg_publication ORDER BY pubname`)
	pubs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Publication, error) {
		var x Publication
		err := row.Scan(&x.Name, &x.AllTables, &x.Insert, &x.Update, &x.Delete, &x.Truncate, &x.ViaRoot)
		return x, err
	})
	p.Publications = pubs
	return err
}

// pubRow is a row of pg_publication_tables with its table's OID.
type pubRow struct {
	oid   uint32
	entry PubEntry
}

// publishedSQL lists pg_publication_tables with each table's OID, found
// by its names in the catalogs on the server (never by a name quoted and
// parsed back). From 15 the view names the published columns and the row
// filter; the explicit column list is pg_publication_rel.prattrs.
const (
	publishedSQL = pg.Marker + `SELECT pt.pubname, c.oid, '{}'::text[], false, ''
FROM pg_publication_tables pt
JOIN pg_namespace n ON n.nspname = pt.schemaname JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = pt.tablename
ORDER BY pt.schemaname, pt.tablename, pt.pubname`
	published15SQL = pg.Marker + `SELECT pt.pubname, c.oid, coalesce(pt.attnames::text[], '{}'),
  EXISTS (SELECT 1 FROM pg_publication_rel pr JOIN pg_publication pb ON pb.oid = pr.prpubid
    WHERE pb.pubname = pt.pubname AND pr.prrelid = c.oid AND pr.prattrs IS NOT NULL),
  coalesce(pt.rowfilter, '')
FROM pg_publication_tables pt
JOIN pg_namespace n ON n.nspname = pt.schemaname JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = pt.tablename
ORDER BY pt.schemaname, pt.tablename, pt.pubname`
)

// readPublishedTables reads pg_publication_tables, then the tables and the
// roots of the published partitions.
func (r *reader) readPublishedTables(ctx context.Context, p *Publisher) error {
	q := publishedSQL
	if r.major >= 15 {
		q = published15SQL
	}
	rows, _ := r.q.Query(ctx, q)
	entries, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (pubRow, error) {
		var x pubRow
		err := row.Scan(&x.entry.Publication, &x.oid, &x.entry.Columns, &x.entry.ColumnList, &x.entry.RowFilter)
		return x, err
	})
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return nil
	}
	var published []uint32
	seen := map[uint32]bool{}
	for _, e := range entries {
		if !seen[e.oid] {
			seen[e.oid] = true
			published = append(published, e.oid)
		}
	}
	f, err := r.readForest(ctx, published)
	if err != nil {
		return err
	}
	oids := append([]uint32{}, published...)
	for _, o := range published {
		if root := f.root(o); !seen[root] {
			seen[root] = true
			oids = append(oids, root)
		}
	}
	tables, err := r.readTables(ctx, oids, f)
	if err != nil {
		return err
	}
	byOID := tablesByOID(tables)
	for _, e := range entries {
		t := byOID[e.oid]
		if t == nil {
			continue
		}
		if r.major < 15 { // every column without a generated one is published
			for _, c := range t.Columns {
				if c.Generated == "" {
					e.entry.Columns = append(e.entry.Columns, c.Name)
				}
			}
		}
		t.Published = append(t.Published, e.entry)
	}
	for i := range tables {
		sort.Slice(tables[i].Published, func(a, b int) bool {
			return tables[i].Published[a].Publication < tables[i].Published[b].Publication
		})
	}
	p.Tables = tables
	return nil
}
