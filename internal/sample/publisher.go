package sample

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/pg"
)

// readPublisher reads the publisher's positions: current WAL position, logical
// slots with their counters, walsenders with their lag intervals, and the
// oldest writing transactions.
func readPublisher(ctx context.Context, c *pg.Conn, t *Read) (map[int]procKey, error) {
	b := &pgx.Batch{}
	b.Queue(pg.Marker + "SELECT CASE WHEN pg_is_in_recovery() THEN " + lsn.SQL("pg_last_wal_replay_lsn()") +
		" ELSE " + lsn.SQL("pg_current_wal_lsn()") + " END")
	b.Queue(pg.Marker + "SELECT slot_name, coalesce(database, ''), active, coalesce(active_pid, 0), " +
		lsn.SQL("restart_lsn") + ", " + lsn.SQL("confirmed_flush_lsn") + ", coalesce(wal_status, ''), safe_wal_size, " + invalidation(c) + ", " + idleTimeout(c) +
		" FROM pg_replication_slots WHERE slot_type = 'logical' ORDER BY slot_name")
	if c.Version.AtLeast(14) {
		b.Queue(pg.Marker + "SELECT slot_name, spill_txns, spill_bytes, stream_txns, stream_bytes, total_txns, total_bytes " +
			"FROM pg_stat_replication_slots")
	}
	b.Queue(pg.Marker + "SELECT r.pid, coalesce(r.application_name, ''), coalesce(r.state, ''), " +
		lsn.SQL("r.sent_lsn") + ", " + lsn.SQL("r.write_lsn") + ", " + lsn.SQL("r.flush_lsn") + ", " + lsn.SQL("r.replay_lsn") +
		", coalesce(extract(epoch from r.backend_start), 0)::float8, " +
		"extract(epoch from r.write_lag)::float8, extract(epoch from r.flush_lag)::float8, extract(epoch from r.replay_lag)::float8, r.reply_time " +
		"FROM pg_stat_replication r ORDER BY r.pid")
	b.Queue(openXactsSQL)
	br := c.SendBatch(ctx, b)
	defer br.Close()

	if err := br.QueryRow().Scan(&t.CurrentLSN); err != nil {
		return nil, fmt.Errorf("read current WAL position: %w", err)
	}
	rows, _ := br.Query()
	slots, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Slot, error) {
		var s Slot
		err := r.Scan(&s.Name, &s.Database, &s.Active, &s.ActivePID, &s.RestartLSN, &s.ConfirmedFlush, &s.WALStatus, &s.SafeWALSize, &s.Invalidation, &s.InactiveSince, &s.IdleTimeoutS)
		return s, err
	})
	if err != nil {
		return nil, fmt.Errorf("read pg_replication_slots: %w", err)
	}
	if c.Version.AtLeast(14) {
		rows, _ := br.Query()
		idx := map[string]int{}
		for i := range slots {
			idx[slots[i].Name] = i
		}
		for rows.Next() {
			var name string
			var st Slot
			if err := rows.Scan(&name, &st.SpillTxns, &st.SpillBytes, &st.StreamTxns, &st.StreamBytes, &st.TotalTxns, &st.TotalBytes); err != nil {
				rows.Close()
				return nil, fmt.Errorf("read pg_stat_replication_slots: %w", err)
			}
			if i, ok := idx[name]; ok {
				s := &slots[i]
				s.SpillTxns, s.SpillBytes, s.StreamTxns, s.StreamBytes, s.TotalTxns, s.TotalBytes =
					st.SpillTxns, st.SpillBytes, st.StreamTxns, st.StreamBytes, st.TotalTxns, st.TotalBytes
			}
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("read pg_stat_replication_slots: %w", err)
		}
	}
	t.Slots = slots
	rows, _ = br.Query()
	keys := map[int]procKey{}
	for rows.Next() {
		var s Sender
		var start float64
		if err := rows.Scan(&s.PID, &s.AppName, &s.State, &s.Sent, &s.Write, &s.Flush, &s.Replay, &start,
			&s.WriteLagS, &s.FlushLagS, &s.ReplayLagS, &s.ReplyAt); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read pg_stat_replication: %w", err)
		}
		t.Senders = append(t.Senders, s)
		keys[s.PID] = procKey{role: RoleWalsender, start: start}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read pg_stat_replication: %w", err)
	}
	rows, _ = br.Query()
	if t.Xacts, err = scanOpenXacts(rows); err != nil {
		return nil, err
	}
	return keys, nil
}

// idleTimeout selects inactive_since (17+) and the server's
// idle_replication_slot_timeout in seconds (18+), NULL where absent.
func idleTimeout(c *pg.Conn) string {
	switch {
	case c.Version.AtLeast(18):
		return "inactive_since, extract(epoch from current_setting('idle_replication_slot_timeout')::interval)::float8"
	case c.Version.AtLeast(17):
		return "inactive_since, NULL::float8"
	default:
		return "NULL::timestamptz, NULL::float8"
	}
}

// invalidation is the SQL for why a slot was invalidated, per version: 17+
// has invalidation_reason (wal_removed, rows_removed,
// wal_level_insufficient; 18 adds idle_timeout); 16 only says conflicting
// (true for any invalidation); before 16 only wal_status = lost tells.
func invalidation(c *pg.Conn) string {
	switch {
	case c.Version.AtLeast(17):
		return "coalesce(invalidation_reason, '')"
	case c.Version.AtLeast(16):
		return "CASE WHEN conflicting THEN 'invalidated' ELSE '' END"
	default:
		return "''"
	}
}
