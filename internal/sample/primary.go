package sample

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/pg"
)

// sendersSQL reads pg_stat_replication's rows, every walsender's (all) or
// the physical ones' only. A walsender is physical when its backend has no
// database (pg_stat_activity.datid is NULL: a replication connection
// without one, which can only stream WAL) and holds no logical slot; its
// slot is the one whose active_pid it is. The slot and sync_state columns
// need pg_read_all_stats (pg_monitor) like the positions.
func sendersSQL(all bool) string {
	q := pg.Marker + "SELECT r.pid, coalesce(r.application_name, ''), coalesce(r.state, ''), " +
		lsn.SQL("r.sent_lsn") + ", " + lsn.SQL("r.write_lsn") + ", " + lsn.SQL("r.flush_lsn") + ", " + lsn.SQL("r.replay_lsn") +
		", coalesce(extract(epoch from r.backend_start), 0)::float8, " +
		"extract(epoch from r.write_lag)::float8, extract(epoch from r.flush_lag)::float8, extract(epoch from r.replay_lag)::float8, r.reply_time, " +
		"p.physical, coalesce(r.sync_state, ''), coalesce(p.slot, '') " +
		"FROM pg_stat_replication r CROSS JOIN LATERAL (SELECT " +
		"(SELECT a.datid IS NULL FROM pg_stat_get_activity(r.pid) a) IS TRUE AND NOT EXISTS " +
		"(SELECT FROM pg_replication_slots s WHERE s.active_pid = r.pid AND s.slot_type = 'logical') AS physical, " +
		"(SELECT s.slot_name::text FROM pg_replication_slots s WHERE s.active_pid = r.pid ORDER BY s.slot_name LIMIT 1) AS slot) p"
	if !all {
		q += " WHERE p.physical"
	}
	return q + " ORDER BY r.pid"
}

// scanSenders reads sendersSQL's rows into t.Senders; each walsender is a
// RoleWalsender process.
func scanSenders(rows pgx.Rows, t *Read) (map[int]procKey, error) {
	keys := map[int]procKey{}
	for rows.Next() {
		var s Sender
		var start float64
		if err := rows.Scan(&s.PID, &s.AppName, &s.State, &s.Sent, &s.Write, &s.Flush, &s.Replay, &start,
			&s.WriteLagS, &s.FlushLagS, &s.ReplayLagS, &s.ReplyAt, &s.Physical, &s.SyncState, &s.Slot); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read pg_stat_replication: %w", err)
		}
		t.Senders = append(t.Senders, s)
		keys[s.PID] = procKey{role: RoleWalsender, start: start}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read pg_stat_replication: %w", err)
	}
	return keys, nil
}

// slotsSQL reads the slots of one type ('logical' or 'physical', a
// constant of the caller's) from pg_replication_slots.
func slotsSQL(c *pg.Conn, slotType string) string {
	return pg.Marker + "SELECT slot_name, coalesce(database, ''), active, coalesce(active_pid, 0), " +
		lsn.SQL("restart_lsn") + ", " + lsn.SQL("confirmed_flush_lsn") + ", coalesce(wal_status, ''), safe_wal_size, " + invalidation(c) + ", " + idleTimeout(c) +
		" FROM pg_replication_slots WHERE slot_type = '" + slotType + "' ORDER BY slot_name"
}

// scanSlots reads slotsSQL's rows.
func scanSlots(rows pgx.Rows) ([]Slot, error) {
	slots, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Slot, error) {
		var s Slot
		err := r.Scan(&s.Name, &s.Database, &s.Active, &s.ActivePID, &s.RestartLSN, &s.ConfirmedFlush, &s.WALStatus, &s.SafeWALSize, &s.Invalidation, &s.InactiveSince, &s.IdleTimeoutS)
		return s, err
	})
	if err != nil {
		return nil, fmt.Errorf("read pg_replication_slots: %w", err)
	}
	return slots, nil
}

// currentLSNSQL is the node's WAL position: pg_current_wal_lsn(), or on a
// server in recovery (a cascading standby) what it has replayed.
var currentLSNSQL = pg.Marker + "SELECT CASE WHEN pg_is_in_recovery() THEN " + lsn.SQL("pg_last_wal_replay_lsn()") +
	" ELSE " + lsn.SQL("pg_current_wal_lsn()") + " END"

// readPrimary reads a primary's positions in one round trip: its WAL
// position, its physical walsenders (pg_stat_replication, with their
// sync_state and slot), its physical slots (Read.PhysicalSlots) and on
// 14+ its WAL counters (Read.WAL: the full-page images' share). It
// returns the walsenders, RoleWalsender processes: /proc and the wait
// probes cover them as a publisher's.
func readPrimary(ctx context.Context, c *pg.Conn, t *Read) (map[int]procKey, error) {
	b := &pgx.Batch{}
	b.Queue(currentLSNSQL)
	b.Queue(slotsSQL(c, "physical"))
	b.Queue(sendersSQL(false))
	if c.Version.AtLeast(14) {
		b.Queue(walStatsSQL)
	}
	br := c.SendBatch(ctx, b)
	defer br.Close()
	if err := br.QueryRow().Scan(&t.CurrentLSN); err != nil {
		return nil, fmt.Errorf("read current WAL position: %w", err)
	}
	rows, _ := br.Query()
	slots, err := scanSlots(rows)
	if err != nil {
		return nil, err
	}
	t.PhysicalSlots = slots
	rows, _ = br.Query()
	keys, err := scanSenders(rows, t)
	if err != nil || !c.Version.AtLeast(14) {
		return keys, err
	}
	var w WALStats
	if err := br.QueryRow().Scan(&w.Records, &w.FPI, &w.Bytes); err != nil {
		return nil, fmt.Errorf("read pg_stat_wal: %w", err)
	}
	t.WAL = &w
	return keys, nil
}

// WALStats are a primary's cumulative WAL counters (pg_stat_wal, since
// its last reset): the records, full-page images and bytes it wrote.
type WALStats struct {
	Records int64 `json:"wal_records"`
	FPI     int64 `json:"wal_fpi"`
	Bytes   int64 `json:"wal_bytes"`
}

// walStatsSQL reads pg_stat_wal (14+, readable by any role).
var walStatsSQL = pg.Marker + "SELECT wal_records, wal_fpi, wal_bytes::bigint FROM pg_stat_wal"
