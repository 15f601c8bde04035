package sample

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/pgversion"
)

// readSubscriber reads every subscription with its workers, the leader's
// message times, and error counters. It returns the workers' pids.
func readSubscriber(ctx context.Context, c *pg.Conn, t *Read) (map[int]procKey, error) {
	kind := workerRole(c.Version)
	errs := "0::bigint, 0::bigint"
	join := ""
	if c.Version.AtLeast(15) {
		errs = "coalesce(ss.apply_error_count, 0), coalesce(ss.sync_error_count, 0)"
		join = " LEFT JOIN pg_stat_subscription_stats ss ON ss.subid = s.oid"
	}
	confl := "NULL::bigint[]"
	if c.Version.AtLeast(18) {
		var cols []string
		for _, k := range pg.ConflictKinds {
			cols = append(cols, "coalesce(ss.confl_"+k+", 0)")
		}
		confl = "ARRAY[" + strings.Join(cols, ", ") + "]"
	}
	oid := "s.oid::bigint"
	if !c.Version.AtLeast(14) {
		oid = "coalesce(st.subid, 0)::bigint" // pg_subscription.oid is superuser-only in 13
	}
	q := pg.Marker + "SELECT " + oid + ", s.subname, coalesce(s.subslotname, ''), s.subenabled, coalesce(st.pid, 0), " + kind + ", " +
		lsn.SQL("st.received_lsn") + ", " + lsn.SQL("st.latest_end_lsn") + ", " + errs + ", " + confl + ", " +
		"(SELECT count(*) FROM pg_subscription_rel r WHERE r.srsubid = s.oid AND r.srsubstate <> 'r')::int, " +
		"coalesce(extract(epoch from a.backend_start), 0)::float8, " +
		"st.last_msg_send_time, st.last_msg_receipt_time, st.latest_end_time, " + lsn.SQL("pg_current_wal_lsn()") + ", " +
		"coalesce(a.wait_event_type = 'Lock', false) " +
		"FROM pg_subscription s LEFT JOIN pg_stat_subscription st ON st.subid = s.oid" + join +
		" LEFT JOIN LATERAL pg_stat_get_activity(st.pid) a ON a.pid = st.pid" +
		" WHERE s.subdbid = (SELECT oid FROM pg_database WHERE datname = current_database())" +
		" ORDER BY s.subname, st.pid"
	if !c.Version.AtLeast(14) {
		// pg_subscription.oid is not readable by non-superusers in 13.
		q = replaceOID(q)
	}
	rows, err := c.Query(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read subscriptions: %w", err)
	}
	keys := map[int]procKey{}
	byName := map[string]int{}
	for rows.Next() {
		var oid int64
		var name, slot, role string
		var enabled bool
		var pid, notReady int
		var recv, end lsn.LSN
		var aerr, serr int64
		var confl []int64
		var start float64
		var sendAt, receiptAt, endAt *time.Time
		var lockWait bool
		if err := rows.Scan(&oid, &name, &slot, &enabled, &pid, &role, &recv, &end, &aerr, &serr, &confl, &notReady, &start,
			&sendAt, &receiptAt, &endAt, &t.CurrentLSN, &lockWait); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read subscriptions: %w", err)
		}
		i, ok := byName[name]
		if !ok {
			t.Subs = append(t.Subs, Sub{OID: oid, Name: name, Slot: slot, Enabled: enabled, ApplyErrors: aerr, SyncErrors: serr,
				Conflicts: conflicts(confl), NotReady: notReady})
			i = len(t.Subs) - 1
			byName[name] = i
		}
		s := &t.Subs[i]
		if pid == 0 {
			continue
		}
		keys[pid] = procKey{role: role, start: start, lockWait: lockWait}
		if role == RoleApply {
			s.WorkerPID, s.Received, s.LatestEnd = pid, recv, end
			s.LastMsgSendAt, s.LastMsgReceiptAt, s.LatestEndAt = sendAt, receiptAt, endAt
		} else {
			s.OtherWorkers = append(s.OtherWorkers, pid)
			if role == RoleTablesync {
				s.SyncWorkers = append(s.SyncWorkers, pid)
			} else {
				s.ParallelWorkers = append(s.ParallelWorkers, pid)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read subscriptions: %w", err)
	}
	return keys, nil
}

// workerRole is the SQL naming a pg_stat_subscription row's role per
// version: 17+ has worker_type (whose 'apply' and 'parallel apply' are
// PostgreSQL's names); 16 has leader_pid (parallel workers); in 13-16
// relid IS NOT NULL marks tablesync workers.
func workerRole(v pgversion.Version) string {
	apply, parallel, sync := roleSQL(RoleApply), roleSQL(RoleParallel), roleSQL(RoleTablesync)
	switch {
	case v.AtLeast(17):
		return "CASE st.worker_type WHEN 'apply' THEN " + apply + " WHEN 'parallel apply' THEN " + parallel + " ELSE " + sync + " END"
	case v.AtLeast(16):
		return "CASE WHEN st.leader_pid IS NOT NULL THEN " + parallel + " WHEN st.relid IS NOT NULL THEN " + sync + " ELSE " + apply + " END"
	default:
		return "CASE WHEN st.relid IS NOT NULL THEN " + sync + " ELSE " + apply + " END"
	}
}

// replaceOID adapts the subscription query to PostgreSQL 13, where a
// non-superuser cannot read pg_subscription.oid: join on the name instead.
func replaceOID(q string) string {
	q = strings.ReplaceAll(q, "ON st.subid = s.oid", "ON st.subname = s.subname")
	return strings.ReplaceAll(q, "r.srsubid = s.oid", "r.srsubid = st.subid")
}

// conflicts maps the counters read (nil before 18) to their kinds.
func conflicts(counts []int64) map[string]int64 {
	if counts == nil {
		return nil
	}
	m := make(map[string]int64, len(pg.ConflictKinds))
	for i, k := range pg.ConflictKinds {
		if i < len(counts) {
			m[k] = counts[i]
		}
	}
	return m
}
