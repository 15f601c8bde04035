package audit

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/pgversion"
)

// ReadPrimary reads a physical standby's primary over c (check --primary):
// its settings, slots, walsenders (pg_stat_replication, with each one's
// slot) and, from 14, pg_stat_wal. A part the role may not read is recorded
// in Unreadable; the error is only for a broken connection.
func ReadPrimary(ctx context.Context, c *pg.Conn) (*Primary, error) {
	r, err := newReader(ctx, c)
	if err != nil {
		return nil, err
	}
	p := &Primary{Version: c.Version}
	if err := r.readBasics(ctx, &p.Taken, &p.Database, &p.InRecovery, PrimarySettings, &p.Settings); err != nil {
		return nil, fmt.Errorf("primary: %w", err)
	}
	p.SystemID = r.systemID(ctx)
	steps := []struct {
		s    Section
		need string
		read func() error
	}{
		{PrimarySlots, "SELECT on pg_replication_slots", func() error {
			pub := &Publisher{InRecovery: p.InRecovery}
			err := r.readSlots(ctx, pub)
			p.Slots, p.CurrentLSN = pub.Slots, pub.CurrentLSN
			return err
		}},
		{PrimaryWalsenders, "pg_read_all_stats (pg_monitor)", func() error { return r.readWalsenders(ctx, p) }},
	}
	if pgversion.StatWAL.On(r.major) {
		steps = append(steps, struct {
			s    Section
			need string
			read func() error
		}{PrimaryWAL, "SELECT on pg_stat_wal", func() error { return r.readWALStats(ctx, p) }})
	}
	for _, st := range steps {
		if err := r.section(st.s, st.need, st.read); err != nil {
			return nil, fmt.Errorf("primary: %w", err)
		}
	}
	if len(r.unreadable) > 0 {
		p.Unreadable = r.unreadable
	}
	return p, nil
}

// walsendersSQL reads pg_stat_replication with the slot each walsender
// streams from (the slot whose active_pid it is).
const walsendersSQL = pg.Marker + `SELECT r.pid, coalesce(r.application_name, ''), r.state, coalesce(r.sync_state, ''),
  coalesce(s.slot_name::text, ''), coalesce(s.slot_type = 'logical', false), coalesce(age(r.backend_xmin), -1),
  extract(epoch FROM r.write_lag)::float8, extract(epoch FROM r.flush_lag)::float8, extract(epoch FROM r.replay_lag)::float8
FROM pg_stat_replication r LEFT JOIN pg_replication_slots s ON s.active_pid = r.pid
ORDER BY r.pid`

// readWalsenders reads the walsenders. Without pg_read_all_stats a row
// shows its pid only (state NULL): that is recorded as unreadable.
func (r *reader) readWalsenders(ctx context.Context, p *Primary) error {
	rows, _ := r.q.Query(ctx, walsendersSQL)
	var w Walsender
	var state *string
	var write, flush, replay *float64
	_, err := pgx.ForEachRow(rows, []any{&w.PID, &w.ApplicationName, &state, &w.SyncState, &w.Slot, &w.Logical, &w.XminAge,
		&write, &flush, &replay}, func() error {
		if state == nil {
			r.unreadable[PrimaryWalsenders] = "needs pg_read_all_stats (pg_monitor): pg_stat_replication shows only the pids"
			return nil
		}
		x := w
		x.State, x.WriteLag, x.FlushLag, x.ReplayLag = *state, copyFloat(write), copyFloat(flush), copyFloat(replay)
		p.Walsenders = append(p.Walsenders, x)
		return nil
	})
	if _, bad := r.unreadable[PrimaryWalsenders]; bad {
		p.Walsenders = nil
	}
	return err
}

func copyFloat(f *float64) *float64 {
	if f == nil {
		return nil
	}
	x := *f
	return &x
}

// readWALStats reads pg_stat_wal's record, full-page image and byte counts.
func (r *reader) readWALStats(ctx context.Context, p *Primary) error {
	var w WALStats
	var reset *time.Time
	if err := r.q.QueryRow(ctx, pg.Marker+"SELECT wal_records, wal_fpi, wal_bytes::int8, stats_reset FROM pg_stat_wal").Scan(&w.Records, &w.FPI, &w.Bytes, &reset); err != nil {
		return err
	}
	w.StatsReset = reset
	p.WAL = &w
	return nil
}
