package sample

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/pg"
)

// readPublisher reads the publisher's positions: current WAL position, logical
// slots with their counters, walsenders with their lag intervals (every
// walsender, a physical one marked Sender.Physical: a publisher may be a
// primary too), and the oldest writing transactions.
func readPublisher(ctx context.Context, c *pg.Conn, t *Read) (map[int]procKey, error) {
	b := &pgx.Batch{}
	b.Queue(currentLSNSQL)
	b.Queue(slotsSQL(c, "logical"))
	if c.Version.AtLeast(14) {
		b.Queue(pg.Marker + "SELECT slot_name, spill_txns, spill_bytes, stream_txns, stream_bytes, total_txns, total_bytes " +
			"FROM pg_stat_replication_slots")
	}
	b.Queue(sendersSQL(true))
	b.Queue(openXactsSQL)
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
	keys, err := scanSenders(rows, t)
	if err != nil {
		return nil, err
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
