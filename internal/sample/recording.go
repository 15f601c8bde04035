package sample

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/lagscope/lagscope/internal/lsn"
)

// RecordingVersion is bumped when Recording's JSON shape changes. Version 2
// added the walsenders' lag intervals and reply time, the subscriptions'
// message times and the subscriber's lock blockers; every field it added is
// optional, so a version 1 recording loads with them nil or empty. Version 3
// added subscriptions' oids and workers by kind, and tablesync COPY progress
// (optional as well). Version 4 added CPU bursts per tick and the probes'
// wake-up lateness, the signals that stand in for /proc (optional). Version
// 5 added the publisher's oldest writing transactions and the subscriber's
// WAL position (optional). Version 6 writes WAL positions as PostgreSQL
// prints them ("16/B374D848"); earlier versions' numbers of bytes still read
// (lsn.LSN). Version 7 added the ticks' failed best-effort reads and the
// pair's setup as 'lagscope check' reads it (optional: without them a
// report says its advice is generic). Version 8 added the slots'
// safe_wal_size (optional: nil before, and when the server has no
// max_slot_wal_keep_size), inactive_since (17+), the server's
// idle_replication_slot_timeout (18+), the free space of the file system
// holding the publisher's pg_wal (on its host) and the subscriptions'
// conflict counters (18+). Version 9 added what the subscriber's apply
// workers did by each tick (Tick.Applied: the subscribed tables'
// pg_stat_user_tables counters, and on 18+ the workers' WAL; optional).
// Version 10 added the lock blockers' backend_start (optional: without it
// no statement ends a blocker, whose pid may have been reused). Version 11
// writes the servers as a list of nodes with roles and each tick's reads
// keyed by node (file.go; docs/recording.md); versions 1 to 10 still read,
// in their own shape, into the same Recording. Version 12 may hold a
// physical path instead of a pair: a primary node and/or a standby node
// (ids "primary" and "standby"), the primary's physical walsenders
// (Sender.Physical, SyncState, Slot: the publisher's are marked as well)
// and physical slots (Read.PhysicalSlots), the standby's read
// (Read.Standby), and the processes RoleStartup and RoleReceiver; a
// version 11 file reads as before.
const RecordingVersion = 12

// Recording is everything sampled over one window: the observed nodes
// (each a server with its role), and at each tick what each node answered
// (Tick.Reads, keyed by node), the processes and the failed reads. Code
// reads a node's server with Server and its part of a tick with
// Tick.Read, by the node's id. A recording holds one path: a pair (one
// publisher node and at most one subscriber node: PublisherNode,
// SubscriberNode), or a physical path (a primary node, a standby node or
// both: PrimaryNode, StandbyNode). The JSON is the file of
// RecordingVersion (MarshalJSON); versions 1 to 10 read into the same
// shape (legacy.go).
type Recording struct {
	Version int       `json:"version"`
	Start   time.Time `json:"start"`
	End     time.Time `json:"end"`
	// Nodes are the observed nodes: the publisher first, then the
	// subscriber when one is observed; or the primary first, then the
	// standby (either may be alone).
	Nodes  []Node  `json:"nodes"`
	Ticks  []Tick  `json:"ticks"`
	Probes []Probe `json:"probes"`
	// Gaps are intervals in which a server could not be sampled (restart,
	// dropped connection).
	Gaps []Gap `json:"gaps,omitempty"`
	// Setup is the pair's setup read once before the window, as 'lagscope
	// check' reads it (the JSON of audit.Snapshots, kept raw so that the
	// sampler does not depend on the checks); SetupError says why it could
	// not be read. Version 7+.
	Setup      json.RawMessage `json:"setup,omitempty"`
	SetupError string          `json:"setup_error,omitempty"`
}

// Server describes one observed server.
type Server struct {
	Version string `json:"version"` // "16.14"
	Major   int    `json:"major"`
	// Proc says whether this host's /proc shows the server's backends, and if
	// not, why not ("" when it does).
	ProcUnavailable string `json:"proc_unavailable,omitempty"`
	CPUs            int    `json:"cpus,omitempty"` // CPUs of this host, when Proc is usable
	// WaitSource is "pg_wait_sampling" when wait events came from that
	// extension's history instead of lagscope's probes ("" = probes).
	// Version 4+.
	WaitSource string `json:"wait_source,omitempty"`
	// ProbeHz is the rate at which lagscope's probes sampled this side's
	// wait events (the highest, when it changed in the window; 0 in
	// recordings before it was kept, and with pg_wait_sampling).
	ProbeHz float64 `json:"probe_hz,omitempty"`
}

// Gap is a window without samples from one side.
type Gap struct {
	Side  string    `json:"side"`
	From  time.Time `json:"from"`
	To    time.Time `json:"to"`
	Cause string    `json:"cause"`
}

// Tick is one moment of a window: each node's read (Reads, one per node
// at most; Read finds a node's), then the processes and the failed
// best-effort reads, each naming its node in Side.
type Tick struct {
	At    time.Time `json:"at"`
	Reads []Read    `json:"reads"`
	// Procs are the replication processes' CPU figures (from /proc).
	Procs []ProcStat `json:"procs,omitempty"`
	// ReadErrors are the best-effort reads of this tick that failed: what
	// they would have said is unknown, not "none" (a blocker read that timed
	// out is not "no blocker").
	ReadErrors []ReadError `json:"read_errors,omitempty"`
}

// Sources of best-effort reads (ReadError.Source, the exporter's
// lagscope_read_errors_total{source}).
const (
	SourceBlockers     = "blockers"      // lock blockers of the subscriber's workers
	SourceCopyProgress = "copy_progress" // pg_stat_progress_copy of tablesync workers
	SourceCPUBurst     = "cpu_burst"     // the in-server CPU burst
	SourceWALDisk      = "wal_disk"      // statfs of the publisher's pg_wal
)

// ReadError is one failed best-effort read.
type ReadError struct {
	Side   string `json:"side"`
	Source string `json:"source"`
	Err    string `json:"error"` // passwords removed
}

// Slot is a logical replication slot on the publisher.
type Slot struct {
	Name           string  `json:"name"`
	Database       string  `json:"database"`
	Active         bool    `json:"active"`
	ActivePID      int     `json:"active_pid,omitempty"`
	RestartLSN     lsn.LSN `json:"restart_lsn,omitempty"`
	ConfirmedFlush lsn.LSN `json:"confirmed_flush_lsn,omitempty"`
	WALStatus      string  `json:"wal_status,omitempty"`
	// SafeWALSize is safe_wal_size: the bytes of WAL the server can
	// write before this slot's WAL is no longer reserved (wal_status
	// unreserved, then lost at a checkpoint); nil when NULL (no
	// max_slot_wal_keep_size, or the slot is lost) or not read (v7-).
	SafeWALSize *int64 `json:"safe_wal_size,omitempty"`
	// InactiveSince is when the slot was last released (17+'s
	// inactive_since); nil while it is active, before 17 and before
	// version 8.
	InactiveSince *time.Time `json:"inactive_since,omitempty"`
	// IdleTimeoutS is the server's idle_replication_slot_timeout in
	// seconds at this tick (18+; 0 when off): an inactive slot is
	// invalidated at the first checkpoint after it has been inactive that
	// long. Nil before 18 and before version 8.
	IdleTimeoutS *float64 `json:"idle_timeout_s,omitempty"`
	// Invalidation is why the slot was invalidated: 17+'s
	// invalidation_reason (wal_removed, rows_removed,
	// wal_level_insufficient, idle_timeout), "invalidated" on 16
	// (conflicting), "" when valid or unknown.
	Invalidation string `json:"invalidation,omitempty"`
	// Counters from pg_stat_replication_slots (14+; zero before).
	SpillTxns   int64 `json:"spill_txns,omitempty"`
	SpillBytes  int64 `json:"spill_bytes,omitempty"`
	StreamTxns  int64 `json:"stream_txns,omitempty"`
	StreamBytes int64 `json:"stream_bytes,omitempty"`
	TotalTxns   int64 `json:"total_txns,omitempty"`
	TotalBytes  int64 `json:"total_bytes,omitempty"`
}

// Sender is a walsender row of pg_stat_replication.
type Sender struct {
	PID     int     `json:"pid"`
	AppName string  `json:"application_name"`
	State   string  `json:"state"`
	Sent    lsn.LSN `json:"sent_lsn,omitempty"`
	Write   lsn.LSN `json:"write_lsn,omitempty"`
	Flush   lsn.LSN `json:"flush_lsn,omitempty"`
	Replay  lsn.LSN `json:"replay_lsn,omitempty"`
	// WriteLagS, FlushLagS and ReplayLagS are pg_stat_replication's
	// write_lag, flush_lag and replay_lag in seconds: how long ago the
	// oldest WAL the standby or subscriber has not yet reported written,
	// flushed, applied was sent. nil when the column is NULL (nothing
	// outstanding, or no reply yet). Version 2+.
	WriteLagS  *float64 `json:"write_lag_s,omitempty"`
	FlushLagS  *float64 `json:"flush_lag_s,omitempty"`
	ReplayLagS *float64 `json:"replay_lag_s,omitempty"`
	// ReplyAt is reply_time: when the walsender last received a status
	// reply from its receiver, on the publisher's clock; nil before the
	// first reply. Version 2+.
	ReplyAt *time.Time `json:"reply_time,omitempty"`
	// Physical says whether it serves a physical standby (no logical
	// slot); SyncState is its sync_state (async, potential, sync, quorum)
	// and Slot its slot's name ("" for none). Version 12+.
	Physical  bool   `json:"physical,omitempty"`
	SyncState string `json:"sync_state,omitempty"`
	Slot      string `json:"slot,omitempty"`
}

// Sub is one subscription on the subscriber, with its leader apply worker.
type Sub struct {
	Name        string  `json:"name"`
	Slot        string  `json:"slot"`
	Enabled     bool    `json:"enabled"`
	WorkerPID   int     `json:"worker_pid,omitempty"` // leader apply worker, 0 if none
	Received    lsn.LSN `json:"received_lsn,omitempty"`
	LatestEnd   lsn.LSN `json:"latest_end_lsn,omitempty"`
	ApplyErrors int64   `json:"apply_error_count,omitempty"`
	SyncErrors  int64   `json:"sync_error_count,omitempty"`
	// Conflicts are pg_stat_subscription_stats' cumulative conflict
	// counters by kind (pg.ConflictKinds: insert_exists, update_missing, ...);
	// nil before 18 (no such counters) and before version 8.
	Conflicts map[string]int64 `json:"conflicts,omitempty"`
	// OtherWorkers are parallel apply and tablesync workers' pids; version
	// 3 also lists them apart in SyncWorkers and ParallelWorkers.
	OtherWorkers    []int `json:"other_workers,omitempty"`
	SyncWorkers     []int `json:"sync_workers,omitempty"`
	ParallelWorkers []int `json:"parallel_workers,omitempty"`
	// OID is the subscription's oid (tablesync slots are named
	// pg_<oid>_sync_<relid>_<system id>); 0 when unknown. Version 3+.
	OID      int64 `json:"oid,omitempty"`
	NotReady int   `json:"tables_not_ready,omitempty"`
	// LastMsgSendAt, LastMsgReceiptAt and LatestEndAt are the leader apply
	// worker's last_msg_send_time (publisher's clock),
	// last_msg_receipt_time and latest_end_time (subscriber's clock) from
	// pg_stat_subscription; nil without a worker or before its first
	// message. Version 2+.
	LastMsgSendAt    *time.Time `json:"last_msg_send_time,omitempty"`
	LastMsgReceiptAt *time.Time `json:"last_msg_receipt_time,omitempty"`
	LatestEndAt      *time.Time `json:"latest_end_time,omitempty"`
}

// ProcStat is a process's cumulative CPU and run-queue delay, in nanoseconds;
// only processes whose start time matched backend_start are recorded.
type ProcStat struct {
	Side   string `json:"side"` // "publisher" or "subscriber"
	PID    int    `json:"pid"`
	Role   string `json:"role"` // RoleWalsender, RoleApply, RoleParallel or RoleTablesync
	CPUNs  int64  `json:"cpu_ns"`
	RunqNs int64  `json:"runq_ns"`
	// Cgroup, Periods, Throttled and ThrottledNs are the CPU bandwidth
	// counters of the cgroup the process runs in (a container's CPU
	// limit), cumulative; empty without a readable cpu.stat. Version 4+.
	Cgroup      string `json:"cgroup,omitempty"`
	Periods     int64  `json:"cpu_periods,omitempty"`
	Throttled   int64  `json:"cpu_throttled_periods,omitempty"`
	ThrottledNs int64  `json:"cpu_throttled_ns,omitempty"`
	// CPUsAllowed is how many CPUs a leader apply worker may run on (its
	// affinity, its cgroup's cpuset and CPU quota: proc.AllowedCPUs) and
	// CPUsAllowedBy what narrows it ("affinity", "cpuset", "cpu.max"); 0
	// and "" when not read (other roles, and recordings made before lagscope read it).
	CPUsAllowed   int    `json:"cpus_allowed,omitempty"`
	CPUsAllowedBy string `json:"cpus_allowed_by,omitempty"`
}

// HostStat is cumulative host CPU time in nanoseconds, summed over CPUs.
type HostStat struct {
	BusyNs  int64 `json:"busy_ns"`
	TotalNs int64 `json:"total_ns"`
}

// CopyProgress is one tablesync worker's initial COPY of a table.
type CopyProgress struct {
	PID        int    `json:"pid"`
	RelID      int64  `json:"relid"`
	Table      string `json:"table,omitempty"`
	Bytes      int64  `json:"bytes_processed"`
	BytesTotal int64  `json:"bytes_total"` // 0: unknown (COPY FROM a stream)
	Tuples     int64  `json:"tuples_processed"`
}

// Blocker is a session that holds (or waits ahead for) a heavyweight lock a
// replication worker of the subscriber waits for, as pg_blocking_pids
// reports it. The blocking session's fields are empty when this role cannot
// see them (no pg_read_all_stats).
type Blocker struct {
	WaiterPID int    `json:"waiter_pid"` // the replication worker that waits
	WaitEvent string `json:"wait_event"` // its wait_event ("relation", "transactionid", "tuple", ...)
	// Session is the blocking backend.
	Session
	// XactAgeS is how long the blocker's transaction has been open, in
	// seconds (0 when it has none or it is not visible).
	XactAgeS float64 `json:"xact_age_s"`
	// Query is the first 200 characters of the blocker's current or last
	// statement, passwords hidden (sqltext.Redact) and, unless the run
	// kept them (Options.KeepQueryLiterals), constants replaced with $n
	// placeholders (sqltext.Normalize).
	Query string `json:"query,omitempty"`
	// BackendStart is the blocking backend's backend_start in UTC, ISO
	// 8601 to the microsecond ("2026-12-05T08:00:00.123456Z"): with PID it
	// names the backend, whose pid may be reused once it ends. Empty when
	// not visible, and in recordings before version 10.
	BackendStart string `json:"backend_start,omitempty"`
}

// Probe is one fast read of wait events on one side.
type Probe struct {
	At    time.Time `json:"at"`
	Side  string    `json:"side"`
	Waits []Wait    `json:"waits"`
	// LateMS is how late the observing session woke from the sleep before
	// this instant, in milliseconds (nil when it did not sleep: the first
	// instant of a batch, or one the reads before it overran). Version 4+.
	LateMS *float64 `json:"late_ms,omitempty"`
}

// Wait is one process's state at a probe. An empty Event means the process
// was on a CPU or runnable.
type Wait struct {
	PID   int    `json:"pid"`
	Type  string `json:"type,omitempty"`  // wait_event_type
	Event string `json:"event,omitempty"` // wait_event
	State string `json:"state,omitempty"`
}

// ReadRecording loads a recording saved with 'lagscope diagnose
// --save-samples' (or 'lab run --save-samples'), any version up to
// RecordingVersion, and checks its names and enumerated fields (Validate).
func ReadRecording(r io.Reader) (*Recording, error) {
	var rec Recording
	if err := json.NewDecoder(r).Decode(&rec); err != nil {
		return nil, fmt.Errorf("read samples: %w (is it a file written by 'lagscope diagnose --save-samples'?)", err)
	}
	switch {
	case rec.Version > RecordingVersion:
		return nil, fmt.Errorf("samples version %d is newer than this lagscope reads (%d): upgrade lagscope", rec.Version, RecordingVersion)
	case rec.Version == 0 || len(rec.Nodes) == 0 || rec.Nodes[0].Version == "":
		return nil, fmt.Errorf("not a lagscope samples file (no version, or no publisher, primary or standby): save one with 'lagscope diagnose --save-samples FILE'")
	case len(rec.Ticks) < 2:
		return nil, fmt.Errorf("the samples hold %d tick(s): at least 2 are needed to measure rates", len(rec.Ticks))
	}
	if err := rec.Validate(); err != nil {
		return nil, fmt.Errorf("read samples: %w", err)
	}
	return &rec, nil
}

// WaitHz is how many times a second the side's most observed process was
// seen in the probes (with pg_wait_sampling, its collector's rate).
func (r *Recording) WaitHz(side string) float64 {
	win := r.End.Sub(r.Start).Seconds()
	if win <= 0 {
		return 0
	}
	seen := map[int]int{}
	most := 0
	for _, p := range r.Probes {
		if p.Side != side || p.At.Before(r.Start) {
			continue
		}
		for _, w := range p.Waits {
			seen[w.PID]++
			most = max(most, seen[w.PID])
		}
	}
	return math.Round(float64(most) / win)
}

// ProbeHz estimates the wait-event probe rate per server of the recording
// (its first node's: the publisher's, or the primary's or standby's).
func (r *Recording) ProbeHz() float64 {
	win := r.End.Sub(r.Start).Seconds()
	if win <= 0 || len(r.Nodes) == 0 {
		return 0
	}
	n := 0
	for _, p := range r.Probes {
		// pg_wait_sampling's first read returns sweeps from before the window.
		if p.Side == string(r.Nodes[0].ID) && !p.At.Before(r.Start) {
			n++
		}
	}
	return math.Round(float64(n) / win)
}

// Slot returns the read's row of the slot named name (a publisher's).
func (t Read) Slot(name string) (Slot, bool) {
	for _, sl := range t.Slots {
		if sl.Name == name {
			return sl, true
		}
	}
	return Slot{}, false
}

// SentBy is the sent_lsn of the walsender pid in the read (0 when absent).
func (t Read) SentBy(pid int) lsn.LSN {
	sn, _ := t.Sender(pid)
	return sn.Sent
}

// Sender is the walsender pid's row in the read (false when absent or pid
// is 0: the slot has no walsender).
func (t Read) Sender(pid int) (Sender, bool) {
	for _, sn := range t.Senders {
		if pid != 0 && sn.PID == pid {
			return sn, true
		}
	}
	return Sender{}, false
}

// Advance is how far a position moved forward from a to b, in bytes: 0
// when either is unknown (0) or it did not move forward (a restarted
// walsender starts again from its slot's confirmed position).
func Advance(b, a lsn.LSN) float64 {
	if a == 0 || b <= a {
		return 0
	}
	return float64(b - a)
}
