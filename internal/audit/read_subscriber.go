package audit

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/pg"
)

// ReadSubscriber reads the subscriber's snapshot over c: settings, the
// subscriptions of its database with their workers, statistics and tables,
// and those tables with their partitions, columns, indexes and triggers.
// A part the role may not read is recorded in Unreadable; the error is only
// for a broken connection.
func ReadSubscriber(ctx context.Context, c *pg.Conn) (*Subscriber, error) {
	r, err := newReader(ctx, c)
	if err != nil {
		return nil, err
	}
	s := &Subscriber{Version: c.Version}
	var inRecovery bool
	if err := r.readBasics(ctx, &s.Taken, &s.Database, &inRecovery, SubSettings, &s.Settings); err != nil {
		return nil, fmt.Errorf("subscriber: %w", err)
	}
	steps := []struct {
		s    Section
		min  int
		need string
		read func() error
	}{
		{SubSubscriptions, 13, "SELECT on pg_subscription (every column but subconninfo)", func() error { return r.readSubscriptions(ctx, s) }},
		{SubWorkers, 13, "SELECT on pg_stat_subscription", func() error { return r.readWorkers(ctx, s) }},
		{SubStats, 15, "SELECT on pg_stat_subscription_stats", func() error { return r.readSubStats(ctx, s) }},
		{SubRels, 13, "SELECT on pg_subscription_rel", func() error { return r.readSubRels(ctx, s) }},
		{SubTables, 13, "SELECT on pg_class, pg_index and pg_attribute", func() error { return r.readSubTables(ctx, s) }},
		{SubTriggers, 13, "SELECT on pg_trigger", func() error { return r.readTriggers(ctx, s.Tables) }},
		{SubRowCosts, 13, "SELECT on pg_constraint, pg_attrdef, pg_depend and pg_trigger", func() error { return r.readRowCosts(ctx, s.Tables) }},
	}
	for _, st := range steps {
		if r.major < st.min {
			continue
		}
		if err := r.section(st.s, st.need, st.read); err != nil {
			return nil, fmt.Errorf("subscriber: %w", err)
		}
	}
	if len(r.unreadable) > 0 {
		s.Unreadable = r.unreadable
	}
	return s, nil
}

func (r *reader) readSubscriptions(ctx context.Context, s *Subscriber) error {
	// 13 does not grant pg_subscription.oid to ordinary roles: take it from
	// pg_stat_subscription, which lists every subscription.
	oid := "s.oid"
	if r.major == 13 {
		oid = "coalesce((SELECT st.subid FROM pg_stat_subscription st WHERE st.subname = s.subname LIMIT 1), 0)"
	}
	cols := "false, 'f', false, ''"
	switch {
	case r.major >= 16:
		cols = "s.subbinary, s.substream::text, s.subdisableonerr, s.suborigin"
	case r.major == 15:
		cols = "s.subbinary, s.substream::text, s.subdisableonerr, ''"
	case r.major == 14:
		cols = "s.subbinary, s.substream::text, false, ''"
	}
	rows, _ := r.q.Query(ctx, pg.Marker+`SELECT `+oid+`, s.subname, s.subenabled, coalesce(s.subslotname, ''), s.subpublications::text[], `+cols+`
FROM pg_subscription s WHERE s.subdbid = (SELECT oid FROM pg_database WHERE datname = current_database()) ORDER BY s.subname`)
	subs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Subscription, error) {
		var x Subscription
		var stream string
		err := row.Scan(&x.OID, &x.Name, &x.Enabled, &x.Slot, &x.Publications, &x.Binary, &stream, &x.DisableOnError, &x.Origin)
		// substream is boolean in 14-15 and "char" f/t/p from 16.
		x.Streaming = map[string]string{"t": "on", "true": "on", "p": "parallel"}[stream]
		if x.Streaming == "" {
			x.Streaming = "off"
		}
		return x, err
	})
	s.Subscriptions = subs
	return err
}

func (r *reader) readWorkers(ctx context.Context, s *Subscriber) error {
	typ := "CASE WHEN relid IS NOT NULL THEN 'table synchronization' ELSE 'apply' END"
	switch {
	case r.major >= 17:
		typ = "worker_type"
	case r.major == 16:
		typ = "CASE WHEN leader_pid IS NOT NULL THEN 'parallel apply' WHEN relid IS NOT NULL THEN 'table synchronization' ELSE 'apply' END"
	}
	rows, _ := r.q.Query(ctx, pg.Marker+`SELECT subid, pid, `+typ+`, coalesce(relid::regclass::text, '')
FROM pg_stat_subscription WHERE pid IS NOT NULL ORDER BY subid, pid`)
	var subid uint32
	var w Worker
	_, err := pgx.ForEachRow(rows, []any{&subid, &w.PID, &w.Type, &w.Relation}, func() error {
		for i := range s.Subscriptions {
			if s.Subscriptions[i].OID == subid {
				s.Subscriptions[i].Workers = append(s.Subscriptions[i].Workers, w)
				return nil
			}
		}
		s.OtherWorkers = append(s.OtherWorkers, w)
		return nil
	})
	return err
}

func (r *reader) readSubStats(ctx context.Context, s *Subscriber) error {
	confl := ""
	if r.major >= 18 {
		for _, c := range pg.ConflictKinds {
			confl += ", confl_" + c
		}
	}
	rows, err := r.q.Query(ctx, pg.Marker+"SELECT subid, apply_error_count, sync_error_count, stats_reset"+confl+" FROM pg_stat_subscription_stats")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var subid uint32
		var st SubscriptionStats
		var reset *time.Time
		counts := make([]int64, len(pg.ConflictKinds))
		dest := []any{&subid, &st.ApplyErrors, &st.SyncErrors, &reset}
		if confl != "" {
			for i := range counts {
				dest = append(dest, &counts[i])
			}
		}
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		st.StatsReset = reset
		if confl != "" {
			st.Conflicts = map[string]int64{}
			for i, c := range pg.ConflictKinds {
				st.Conflicts[c] = counts[i]
			}
		}
		for i := range s.Subscriptions {
			if s.Subscriptions[i].OID == subid {
				x := st
				s.Subscriptions[i].Stats = &x
			}
		}
	}
	return rows.Err()
}

func (r *reader) readSubRels(ctx context.Context, s *Subscriber) error {
	if len(s.Subscriptions) == 0 {
		return nil
	}
	var oids []uint32
	for _, x := range s.Subscriptions {
		oids = append(oids, x.OID)
	}
	rows, _ := r.q.Query(ctx, pg.Marker+`SELECT sr.srsubid, sr.srrelid, n.nspname, c.relname, sr.srsubstate::text
FROM pg_subscription_rel sr JOIN pg_class c ON c.oid = sr.srrelid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE sr.srsubid = ANY($1) ORDER BY n.nspname, c.relname`, oids)
	var subid uint32
	var rel SubscriptionRel
	_, err := pgx.ForEachRow(rows, []any{&subid, &rel.OID, &rel.Schema, &rel.Name, &rel.State}, func() error {
		x := rel
		x.Table = Table{Schema: x.Schema, Name: x.Name}.Qualified()
		for i := range s.Subscriptions {
			if s.Subscriptions[i].OID == subid {
				s.Subscriptions[i].Relations = append(s.Subscriptions[i].Relations, x)
			}
		}
		return nil
	})
	return err
}

// readSubTables reads the subscribed tables (by OID) with their partition
// ancestors and descendants (a partitioned table applies through its
// leaves' indexes).
func (r *reader) readSubTables(ctx context.Context, s *Subscriber) error {
	var subscribed []uint32
	for _, x := range s.Subscriptions {
		for _, rel := range x.Relations {
			subscribed = append(subscribed, rel.OID)
		}
	}
	if len(subscribed) == 0 {
		return nil
	}
	f, err := r.readForest(ctx, subscribed)
	if err != nil {
		return err
	}
	s.Tables, err = r.readTables(ctx, f.around(subscribed), f)
	return err
}
