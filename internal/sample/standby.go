package sample

import (
	"time"

	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/topology"
)

// The nodes of an observed physical path: a primary and its standby.
const (
	PrimaryNode = topology.NodeID(topology.Primary)
	StandbyNode = topology.NodeID(topology.Standby)
)

// Roles of a physical standby's processes, as recorded in ProcStat.Role
// (the primary's walsender that feeds it is RoleWalsender).
const (
	// RoleStartup is a standby's startup process: it replays the WAL, alone.
	RoleStartup = "startup"
	// RoleReceiver is a standby's WAL receiver: it receives the primary's
	// WAL, writes and flushes it to the standby's pg_wal.
	RoleReceiver = "walreceiver"
)

// StandbyRead is what a physical standby answered at one tick (Read.Standby).
// Positions are 0 when unknown; pointers are nil when not read (a column
// the version lacks, a failed best-effort read).
type StandbyRead struct {
	// Receive is pg_last_wal_receive_lsn(): the WAL received and flushed
	// by the WAL receiver; Replay is pg_last_wal_replay_lsn().
	Receive lsn.LSN `json:"receive_lsn,omitempty"`
	Replay  lsn.LSN `json:"replay_lsn,omitempty"`
	// ReplayedXactAt is pg_last_xact_replay_timestamp(): the commit time,
	// on the primary's clock, of the last transaction replayed. It says
	// nothing of lag on its own (an idle primary commits nothing).
	ReplayedXactAt *time.Time `json:"replayed_xact_at,omitempty"`
	// Now is the standby's clock at this read (now()).
	Now time.Time `json:"now"`
	// PauseState is pg_get_wal_replay_pause_state() (14+: "not paused",
	// "pause requested", "paused"), or on 13 "paused"/"not paused" from
	// pg_is_wal_replay_paused(); "" when not in recovery.
	PauseState string `json:"pause_state,omitempty"`
	// Promoted says the server was no longer in recovery at this read
	// (pg_is_in_recovery() false): no pause state, and positions that
	// stopped where recovery ended.
	Promoted bool `json:"promoted,omitempty"`
	// StartupPID is the startup process's pid (0 when not found).
	StartupPID int `json:"startup_pid,omitempty"`
	// Receiver is the WAL receiver (pg_stat_wal_receiver; nil when none
	// runs: the standby replays from its archive, or the primary is gone).
	Receiver *WALReceiver `json:"receiver,omitempty"`
	// Settings are the standby's settings that bear on replay, read at
	// each tick (they can change with a reload).
	Settings StandbySettings `json:"settings"`
	// Conflicts are pg_stat_database_conflicts' counters summed over the
	// databases, by kind (tablespace, lock, snapshot, bufferpin, deadlock,
	// and 16+'s active_logicalslot): queries cancelled by replay.
	Conflicts map[string]int64 `json:"conflicts,omitempty"`
	// Prefetch is pg_stat_recovery_prefetch (15+).
	Prefetch *RecoveryPrefetch `json:"prefetch,omitempty"`
	// IO is the startup process's reads from pg_stat_io (16+).
	IO *StartupIO `json:"io,omitempty"`
	// Holders are the standby's sessions that hold back replay when the
	// startup process waits on a recovery conflict (read only then; a
	// best-effort source).
	Holders []ConflictHolder `json:"holders,omitempty"`
	// LogicalSlots are the standby's logical slots (16+: logical decoding
	// on a standby), Slot.Invalidation from 16's conflicting or 17's
	// invalidation_reason; nil before 16 or when not read.
	LogicalSlots []Slot `json:"logical_slots,omitempty"`
}

// WALReceiver is the standby's row of pg_stat_wal_receiver.
type WALReceiver struct {
	PID    int    `json:"pid"`
	Status string `json:"status"` // streaming, waiting, stopping, ...
	// Written and Flushed are written_lsn and flushed_lsn (13+): the WAL
	// written to the standby's pg_wal and flushed there.
	Written lsn.LSN `json:"written_lsn,omitempty"`
	Flushed lsn.LSN `json:"flushed_lsn,omitempty"`
	// LatestEnd is latest_end_lsn: the primary's WAL end as last reported
	// to the receiver (what the standby knows it lacks).
	LatestEnd lsn.LSN `json:"latest_end_lsn,omitempty"`
	// LastMsgSendAt (primary's clock), LastMsgReceiptAt and LatestEndAt
	// (standby's clock) are last_msg_send_time, last_msg_receipt_time and
	// latest_end_time.
	LastMsgSendAt    *time.Time `json:"last_msg_send_time,omitempty"`
	LastMsgReceiptAt *time.Time `json:"last_msg_receipt_time,omitempty"`
	LatestEndAt      *time.Time `json:"latest_end_time,omitempty"`
	// Slot is the primary's slot it streams from ("" for none).
	Slot string `json:"slot,omitempty"`
	// SenderHost and SenderPort name the server it streams from (a
	// cascade's upstream is a standby itself).
	SenderHost string `json:"sender_host,omitempty"`
	SenderPort int    `json:"sender_port,omitempty"`
}

// StandbySettings are the standby's settings that shape replay, in
// milliseconds where they are times (-1 as PostgreSQL writes "wait
// forever").
type StandbySettings struct {
	MinApplyDelayMS        int64  `json:"recovery_min_apply_delay_ms"`
	MaxStreamingDelayMS    int64  `json:"max_standby_streaming_delay_ms"`
	MaxArchiveDelayMS      int64  `json:"max_standby_archive_delay_ms"`
	HotStandbyFeedback     bool   `json:"hot_standby_feedback"`
	RecoveryPrefetch       string `json:"recovery_prefetch,omitempty"` // try, on, off (15+)
	MaintenanceIOConc      int    `json:"maintenance_io_concurrency,omitempty"`
	ReceiverStatusInterval int64  `json:"wal_receiver_status_interval_ms,omitempty"`
}

// RecoveryPrefetch is pg_stat_recovery_prefetch's row: cumulative block
// counts, and the current look-ahead.
type RecoveryPrefetch struct {
	Prefetch      int64 `json:"prefetch"`       // blocks prefetched: not in the buffer pool
	Hit           int64 `json:"hit"`            // already in the buffer pool
	SkipInit      int64 `json:"skip_init"`      // would be zero-initialised
	SkipNew       int64 `json:"skip_new"`       // did not exist yet
	SkipFPW       int64 `json:"skip_fpw"`       // a full-page image was in the WAL
	SkipRep       int64 `json:"skip_rep"`       // already recently prefetched
	WALDistance   int64 `json:"wal_distance"`   // bytes the prefetcher looks ahead
	BlockDistance int64 `json:"block_distance"` // blocks in flight
	IODepth       int64 `json:"io_depth"`       // prefetches in flight
}

// StartupIO is pg_stat_io summed over the startup process's rows (16+):
// what replay read from the data files and how long it took (read_time
// needs track_io_timing; nil then). On 18.4 it read 0 reads and 0 hits
// all through streaming replay while the prefetcher counted 9828 hits
// (TestIntegrationPhysicalPath): the startup process does not seem to
// flush its I/O counters while recovery runs, so zeros say nothing.
type StartupIO struct {
	Reads      int64    `json:"reads"`
	Hits       int64    `json:"hits"`
	ReadTimeMS *float64 `json:"read_time_ms,omitempty"`
}

// ConflictHolder is a standby session that holds back replay: a snapshot
// older than what replay removes, a lock replay needs, or a buffer pin.
type ConflictHolder struct {
	Session
	// Holds says what it holds: "snapshot" (backend_xmin), "lock",
	// "buffer pin".
	Holds string `json:"holds"`
	// XactStart and QueryStart are its transaction's and statement's start
	// (nil when not visible).
	XactStart  *time.Time `json:"xact_start,omitempty"`
	QueryStart *time.Time `json:"query_start,omitempty"`
	// Query is its statement, as a Blocker's (redacted, normalised, 200
	// characters at most).
	Query        string `json:"query,omitempty"`
	BackendStart string `json:"backend_start,omitempty"`
}
