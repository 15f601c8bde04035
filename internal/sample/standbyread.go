package sample

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/pgversion"
	"github.com/lagscope/lagscope/internal/sqltext"
)

// Sources of a standby's best-effort reads (ReadError.Source).
const (
	SourcePrefetch  = "recovery_prefetch" // pg_stat_recovery_prefetch (15+)
	SourceStartupIO = "startup_io"        // pg_stat_io of the startup process (16+)
	SourceHolders   = "conflict_holders"  // the sessions that hold replay back
)

// standbyPositionsSQL reads a standby's positions and the state of its
// replay. A server no longer in recovery (promoted) answers NULL positions
// and no pause state: the pause functions fail outside recovery, so they
// are called only within it. On 13, pg_is_wal_replay_paused() stands for
// pg_get_wal_replay_pause_state() (14+), which tells "pause requested"
// apart from "paused".
func standbyPositionsSQL(v pgversion.Version) string {
	pause := "pg_get_wal_replay_pause_state()"
	if !v.AtLeast(14) {
		pause = "CASE WHEN pg_is_wal_replay_paused() THEN 'paused' ELSE 'not paused' END"
	}
	return pg.Marker + "SELECT pg_is_in_recovery(), " + lsn.SQL("pg_last_wal_receive_lsn()") + ", " + lsn.SQL("pg_last_wal_replay_lsn()") +
		", pg_last_xact_replay_timestamp(), now(), coalesce(CASE WHEN pg_is_in_recovery() THEN " + pause + " END, '')"
}

// standbyProcsSQL finds the startup process and the WAL receiver, with
// their backend_start (for /proc) and wait event (a recovery conflict is
// read at the tick that sees it). pg_stat_get_activity(NULL) is what
// pg_stat_activity reads, without its joins: both processes have no
// database, and a sampler that filters backends by database never sees
// them.
const standbyProcsSQL = pg.Marker + `SELECT a.pid, a.backend_type, coalesce(extract(epoch FROM a.backend_start), 0)::float8,
	coalesce(a.wait_event_type, ''), coalesce(a.wait_event, '')
FROM pg_stat_get_activity(NULL) AS a
WHERE a.backend_type IN ('startup', 'walreceiver')
ORDER BY a.pid`

// walReceiverSQL reads pg_stat_wal_receiver (no row when no receiver runs;
// written_lsn and flushed_lsn are 13+, as lagscope's oldest server).
var walReceiverSQL = pg.Marker + "SELECT pid, coalesce(status, ''), " + lsn.SQL("written_lsn") + ", " + lsn.SQL("flushed_lsn") + ", " + lsn.SQL("latest_end_lsn") +
	", last_msg_send_time, last_msg_receipt_time, latest_end_time, coalesce(slot_name, ''), coalesce(sender_host, ''), coalesce(sender_port, 0) " +
	"FROM pg_stat_wal_receiver"

// standbySettings are the settings a standby's read holds
// (StandbySettings), read from pg_settings by name ($1): recovery_prefetch
// is 15+, absent (empty) before.
var standbySettings = []string{"recovery_min_apply_delay", "max_standby_streaming_delay", "max_standby_archive_delay",
	"hot_standby_feedback", "recovery_prefetch", "maintenance_io_concurrency", "wal_receiver_status_interval"}

const settingsSQL = pg.Marker + "SELECT name, coalesce(setting, ''), coalesce(unit, '') FROM pg_settings WHERE name = ANY($1)"

// standbyConflictKinds are pg_stat_database_conflicts' counters on version
// v, each a column confl_<kind> (active_logicalslot 16+).
func standbyConflictKinds(v pgversion.Version) []string {
	kinds := []string{"tablespace", "lock", "snapshot", "bufferpin", "deadlock"}
	if v.AtLeast(16) {
		kinds = append(kinds, "active_logicalslot")
	}
	return kinds
}

// conflictsSQL sums pg_stat_database_conflicts over the databases, one
// column a kind.
func conflictsSQL(kinds []string) string {
	cols := make([]string, len(kinds))
	for i, k := range kinds {
		cols[i] = "coalesce(sum(confl_" + k + "), 0)::bigint"
	}
	return pg.Marker + "SELECT " + strings.Join(cols, ", ") + " FROM pg_stat_database_conflicts"
}

// oneByOne runs a batch's statements one at a time, in their order, as a
// sent batch's QueryRow and Query would read them: a batch is one implicit
// transaction, and a standby replaying WAL older than
// max_standby_streaming_delay ends a session whose transaction meets a
// cleanup record (FATAL, SQLSTATE 40001), where it only cancels a lone
// statement (18.4: replay-cpu's 2.4 GB backlog replayed at 150 MB/s lost
// the standby's reads for 3.9 s of a 4 s window, its sessions terminated).
type oneByOne struct {
	ctx context.Context
	c   *pg.Conn
	b   *pgx.Batch
	i   int
}

func (o *oneByOne) next() *pgx.QueuedQuery {
	q := o.b.QueuedQueries[o.i]
	o.i++
	return q
}

// QueryRow runs the next statement for one row.
func (o *oneByOne) QueryRow() pgx.Row {
	q := o.next()
	return o.c.QueryRow(o.ctx, q.SQL, q.Arguments...)
}

// Query runs the next statement for its rows (an error is the rows' Err).
func (o *oneByOne) Query() (pgx.Rows, error) {
	q := o.next()
	return o.c.Query(o.ctx, q.SQL, q.Arguments...)
}

// readStandby reads a standby's positions, a statement at a time (Read.Standby):
// received and replayed WAL, the last replayed commit's time, the pause
// state, the startup process and the WAL receiver, its settings and its
// recovery-conflict counters. It returns the startup process (RoleStartup)
// and the WAL receiver (RoleReceiver): /proc and the wait probes cover
// them.
func readStandby(ctx context.Context, c *pg.Conn, t *Read) (map[int]procKey, error) {
	kinds := standbyConflictKinds(c.Version)
	b := &pgx.Batch{}
	b.Queue(standbyPositionsSQL(c.Version))
	b.Queue(standbyProcsSQL)
	b.Queue(walReceiverSQL)
	b.Queue(settingsSQL, standbySettings)
	b.Queue(conflictsSQL(kinds))
	br := &oneByOne{ctx: ctx, c: c, b: b}

	sr := &StandbyRead{}
	var inRecovery bool
	if err := br.QueryRow().Scan(&inRecovery, &sr.Receive, &sr.Replay, &sr.ReplayedXactAt, &sr.Now, &sr.PauseState); err != nil {
		return nil, fmt.Errorf("read the standby's positions: %w", err)
	}
	sr.Promoted = !inRecovery
	// A standby's own WAL position is what it has replayed (what it would
	// send a cascaded standby of its own is at most what it received).
	t.CurrentLSN = sr.Replay
	keys := map[int]procKey{}
	rows, _ := br.Query()
	for rows.Next() {
		var pid int
		var typ, waitType, waitEvent string
		var start float64
		if err := rows.Scan(&pid, &typ, &start, &waitType, &waitEvent); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read the startup process and the WAL receiver: %w", err)
		}
		k := procKey{start: start, lockWait: waitType == "Lock"}
		if typ == "startup" {
			k.role = RoleStartup
			k.conflict = recoveryConflict(c.Version, waitType, waitEvent)
			sr.StartupPID = pid
		} else {
			k.role = RoleReceiver
		}
		keys[pid] = k
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the startup process and the WAL receiver: %w", err)
	}
	rows, _ = br.Query()
	for rows.Next() {
		w := &WALReceiver{}
		if err := rows.Scan(&w.PID, &w.Status, &w.Written, &w.Flushed, &w.LatestEnd, &w.LastMsgSendAt, &w.LastMsgReceiptAt, &w.LatestEndAt,
			&w.Slot, &w.SenderHost, &w.SenderPort); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read pg_stat_wal_receiver: %w", err)
		}
		sr.Receiver = w
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read pg_stat_wal_receiver: %w", err)
	}
	rows, _ = br.Query()
	for rows.Next() {
		var name, setting, unit string
		if err := rows.Scan(&name, &setting, &unit); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read the standby's settings: %w", err)
		}
		if err := sr.Settings.set(name, setting, unit); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read the standby's settings: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the standby's settings: %w", err)
	}
	counts := make([]int64, len(kinds))
	ptrs := make([]any, len(kinds))
	for i := range counts {
		ptrs[i] = &counts[i]
	}
	if err := br.QueryRow().Scan(ptrs...); err != nil {
		return nil, fmt.Errorf("read pg_stat_database_conflicts: %w", err)
	}
	sr.Conflicts = make(map[string]int64, len(kinds))
	for i, k := range kinds {
		sr.Conflicts[k] = counts[i]
	}
	t.Standby = sr
	return keys, nil
}

// set stores one setting read from pg_settings, a time in milliseconds
// (-1 stays -1: "wait forever").
func (s *StandbySettings) set(name, setting, unit string) error {
	num := func() (int64, error) {
		n, err := strconv.ParseInt(setting, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s = %q: not an integer", name, setting)
		}
		return n, nil
	}
	ms := func() (int64, error) {
		n, err := num()
		if err != nil || n < 0 {
			return n, err
		}
		switch unit {
		case "ms", "":
			return n, nil
		case "s":
			return n * 1000, nil
		case "min":
			return n * 60_000, nil
		}
		return 0, fmt.Errorf("%s: unit %q is not a time lagscope reads", name, unit)
	}
	var err error
	switch name {
	case "recovery_min_apply_delay":
		s.MinApplyDelayMS, err = ms()
	case "max_standby_streaming_delay":
		s.MaxStreamingDelayMS, err = ms()
	case "max_standby_archive_delay":
		s.MaxArchiveDelayMS, err = ms()
	case "wal_receiver_status_interval":
		s.ReceiverStatusInterval, err = ms()
	case "hot_standby_feedback":
		s.HotStandbyFeedback = setting == "on"
	case "recovery_prefetch":
		s.RecoveryPrefetch = setting
	case "maintenance_io_concurrency":
		var n int64
		n, err = num()
		s.MaintenanceIOConc = int(n)
	}
	return err
}

// Recovery conflicts as what the startup process waits on (procKey.conflict,
// ConflictHolder.Holds).
const (
	holdsSnapshot   = "snapshot"
	holdsLock       = "lock"
	holdsBufferPin  = "buffer pin"
	holdsTablespace = "tablespace"
)

// conflictWait is a wait event (type, name) of the startup process that
// is a recovery conflict, and what the conflict is on.
type conflictWait struct {
	typ, event, holds string
}

// conflictWaits are the startup process's recovery-conflict wait events on
// version v. 13-16 name them in the source's switch statements
// (pgstat.c, then wait_event.c); 17 generates the names from
// wait_event_names.txt (RECOVERY_CONFLICT_SNAPSHOT as
// RecoveryConflictSnapshot, BUFFER_PIN as BufferPin: these kept their
// case, unlike WALRead); 19 names the buffer-pin wait's type Buffer. A
// wait of type Lock (any lock tag: relation, object...) is a lock
// conflict on every version: replay waits in the lock queue for the
// standby's session.
func conflictWaits(v pgversion.Version) []conflictWait {
	ws := []conflictWait{
		{"IPC", "RecoveryConflictSnapshot", holdsSnapshot},
		{"IPC", "RecoveryConflictTablespace", holdsTablespace},
		{"BufferPin", "BufferPin", holdsBufferPin},
	}
	if v.AtLeast(19) {
		ws = append(ws, conflictWait{"Buffer", "BufferPin", holdsBufferPin})
	}
	return ws
}

// recoveryConflict says what the startup process waiting on (typ, event)
// waits for as a recovery conflict on version v ("" when the wait is not
// one).
func recoveryConflict(v pgversion.Version, typ, event string) string {
	if typ == "Lock" {
		return holdsLock
	}
	for _, w := range conflictWaits(v) {
		if typ == w.typ && event == w.event {
			return w.holds
		}
	}
	return ""
}

// prefetchSQL reads pg_stat_recovery_prefetch (15+).
const prefetchSQL = pg.Marker + `SELECT prefetch, hit, skip_init, skip_new, skip_fpw, skip_rep,
	coalesce(wal_distance, 0)::bigint, coalesce(block_distance, 0)::bigint, coalesce(io_depth, 0)::bigint
FROM pg_stat_recovery_prefetch`

// readPrefetchSource reads the recovery prefetcher's counters (15+; a
// standby only).
func readPrefetchSource(ctx context.Context, s *session, r *Read, _ map[int]procKey) error {
	if r.Standby == nil || !s.conn.Version.AtLeast(15) {
		return nil
	}
	p, err := bestEffort(ctx, func(ctx context.Context) (*RecoveryPrefetch, error) {
		p := &RecoveryPrefetch{}
		err := s.conn.QueryRow(ctx, prefetchSQL).Scan(&p.Prefetch, &p.Hit, &p.SkipInit, &p.SkipNew, &p.SkipFPW, &p.SkipRep,
			&p.WALDistance, &p.BlockDistance, &p.IODepth)
		if err != nil {
			return nil, fmt.Errorf("read pg_stat_recovery_prefetch: %w", err)
		}
		return p, nil
	})
	r.Standby.Prefetch = p
	return err
}

// startupIOSQL sums the startup process's rows of pg_stat_io over the
// relations' I/O (18's WAL rows left out: replay reading its WAL is not
// replay reading data files); read_time is NULL unless track_io_timing is
// on (it reads 0 then, which would say the reads took no time).
const startupIOSQL = pg.Marker + `SELECT coalesce(sum(reads), 0)::bigint, coalesce(sum(hits), 0)::bigint,
	CASE WHEN current_setting('track_io_timing')::bool THEN coalesce(sum(read_time), 0)::float8 END
FROM pg_stat_io
WHERE backend_type = 'startup' AND object = 'relation'`

// readStartupIOSource reads the startup process's data file I/O (16+; a
// standby only).
func readStartupIOSource(ctx context.Context, s *session, r *Read, _ map[int]procKey) error {
	if r.Standby == nil || !s.conn.Version.AtLeast(16) {
		return nil
	}
	io, err := bestEffort(ctx, func(ctx context.Context) (*StartupIO, error) {
		io := &StartupIO{}
		if err := s.conn.QueryRow(ctx, startupIOSQL).Scan(&io.Reads, &io.Hits, &io.ReadTimeMS); err != nil {
			return nil, fmt.Errorf("read pg_stat_io: %w", err)
		}
		return io, nil
	})
	r.Standby.IO = io
	return err
}

// holdersSQL lists the standby's sessions that hold replay back, for the
// startup process $1: those holding the locks it waits on, by
// pg_blocking_pids (called only while it waits on a lock, $2: the lock
// manager's partition locks are not taken otherwise), and those with the
// oldest snapshot (backend_xmin, only with $3: replay waits on a snapshot
// conflict, or stands still with WAL to replay), besides lagscope's own
// session. Query, state and times need pg_read_all_stats (pg_monitor).
const holdersSQL = pg.Marker + `WITH h AS (
	SELECT bp.pid, 'lock' AS holds
	FROM unnest(CASE WHEN $2::bool THEN pg_blocking_pids($1::int) END) AS bp(pid)
	UNION
	SELECT * FROM (
		SELECT a.pid, 'snapshot'
		FROM pg_stat_get_activity(NULL) AS a
		WHERE $3::bool AND a.backend_xmin IS NOT NULL AND a.pid <> pg_backend_pid()
			AND age(a.backend_xmin) = (SELECT max(age(o.backend_xmin)) FROM pg_stat_get_activity(NULL) AS o
				WHERE o.backend_xmin IS NOT NULL AND o.pid <> pg_backend_pid())
		ORDER BY a.pid LIMIT 5) AS s
)
SELECT h.pid, h.holds, coalesce(b.application_name, ''),
	coalesce((SELECT r.rolname::text FROM pg_roles r WHERE r.oid = b.usesysid), ''),
	coalesce(b.backend_type, ''), coalesce(b.state, ''), b.xact_start, b.query_start,
	coalesce(left(b.query, 200), ''),
	coalesce(to_char(b.backend_start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), '')
FROM h CROSS JOIN LATERAL pg_stat_get_activity(h.pid) AS b
ORDER BY h.holds, h.pid`

// readHoldersSource reads the sessions that hold replay back when the
// startup process waits on a recovery conflict (its wait event at this
// tick's read), or when replay stood still since the last tick with WAL
// received and not replayed (the startup process between two of its
// conflict waits). Replay paused or delayed by settings holds nobody's
// session: it is not read then.
func readHoldersSource(ctx context.Context, s *session, r *Read, backends map[int]procKey) error {
	sr := r.Standby
	if sr == nil || sr.StartupPID == 0 {
		return nil
	}
	k := backends[sr.StartupPID]
	prev := s.lastReplay
	s.lastReplay = sr.Replay
	still := prev != 0 && sr.Replay == prev && sr.Receive > sr.Replay && sr.PauseState != "paused" && sr.Settings.MinApplyDelayMS == 0
	if k.conflict == "" && !still {
		return nil
	}
	snapshot := still || k.conflict == holdsSnapshot
	hs, err := bestEffort(ctx, func(ctx context.Context) ([]ConflictHolder, error) {
		return readHolders(ctx, s.conn, sr.StartupPID, k.conflict == holdsLock, snapshot)
	})
	sr.Holders = hs
	return err
}

// readHolders runs holdersSQL for the startup process pid.
func readHolders(ctx context.Context, c *pg.Conn, pid int, lock, snapshot bool) ([]ConflictHolder, error) {
	rows, err := c.Query(ctx, holdersSQL, pid, lock, snapshot)
	if err != nil {
		return nil, fmt.Errorf("read the sessions holding replay back: %w", err)
	}
	defer rows.Close()
	var out []ConflictHolder
	for rows.Next() {
		var h ConflictHolder
		if err := rows.Scan(&h.PID, &h.Holds, &h.AppName, &h.User, &h.BackendType, &h.State, &h.XactStart, &h.QueryStart, &h.Query, &h.BackendStart); err != nil {
			return nil, fmt.Errorf("read the sessions holding replay back: %w", err)
		}
		h.Query = sqltext.Redact(h.Query)
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the sessions holding replay back: %w", err)
	}
	return out, nil
}

// SourceSenders is the standby's own walsenders (pg_stat_replication on a
// standby: a cascaded standby's, or 16+ a logical slot's on the standby)
// and 16+ its logical slots.
const SourceSenders = "standby_senders"

// readStandbySendersSource reads the standby's own walsenders into
// r.Senders, every one (physical: a cascaded standby streaming from it;
// logical: a slot on the standby, 16+), and adds them to backends as
// RoleWalsender processes: /proc and the wait probes cover them as a
// primary's. On 16+ it reads the standby's logical slots too
// (StandbyRead.LogicalSlots).
func readStandbySendersSource(ctx context.Context, s *session, r *Read, backends map[int]procKey) error {
	if r.Standby == nil {
		return nil
	}
	var senders []Sender
	keys, err := bestEffort(ctx, func(ctx context.Context) (map[int]procKey, error) {
		var t Read
		rows, err := s.conn.Query(ctx, sendersSQL(true))
		if err != nil {
			return nil, fmt.Errorf("read pg_stat_replication: %w", err)
		}
		keys, err := scanSenders(rows, &t)
		senders = t.Senders
		return keys, err
	})
	if err != nil {
		return err
	}
	r.Senders = senders
	if s.conn.Version.AtLeast(16) {
		// Logical decoding on a standby (16+): its logical slots, with
		// 16's conflicting / 17's invalidation_reason.
		slots, err := bestEffort(ctx, func(ctx context.Context) ([]Slot, error) {
			rows, err := s.conn.Query(ctx, slotsSQL(s.conn, "logical"))
			if err != nil {
				return nil, fmt.Errorf("read pg_replication_slots: %w", err)
			}
			return scanSlots(rows)
		})
		if err != nil {
			return err
		}
		r.Standby.LogicalSlots = slots
	}
	for pid, k := range keys {
		if _, ok := backends[pid]; !ok && backends != nil {
			backends[pid] = k
		}
	}
	return nil
}
