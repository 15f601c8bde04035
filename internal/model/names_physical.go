package model

import "github.com/lagscope/lagscope/internal/sample"

// Stages of a physical path (a primary's walsender, StageLink, then these),
// in pipeline order.
const (
	// StageReceiver is the standby's WAL receiver: it writes and flushes
	// what the link delivers.
	StageReceiver = StageName(sample.RoleReceiver)
	// StageReplay is the standby's startup process: it replays the WAL,
	// alone (the ceiling of a physical standby).
	StageReplay = StageName(sample.RoleStartup)
)

// Verdict names of a physical path (issue 40). The walsender's, the
// link's and caught-up are the logical path's names: WalsenderStarved,
// WalsenderReadIO, Network, CaughtUp.
const (
	// ReplayCPU: the startup process replays on a full core.
	ReplayCPU VerdictName = "replay-cpu"
	// ReplayStarved: the startup process is runnable and waits for a CPU.
	ReplayStarved VerdictName = "replay-starved"
	// ReplayReadIO: replay waits on data file reads.
	ReplayReadIO VerdictName = "replay-read-io"
	// ReplayConflict: replay waits for a standby query that conflicts with
	// it (a snapshot, a lock, a buffer pin).
	ReplayConflict VerdictName = "replay-conflict"
	// ReplayPaused: replay is paused (pg_wal_replay_pause()).
	ReplayPaused VerdictName = "replay-paused"
	// ReplayDelayed: recovery_min_apply_delay holds replay back on purpose.
	ReplayDelayed VerdictName = "replay-delayed"
	// ReceiverIO: the WAL receiver's writes or flushes limit.
	ReceiverIO VerdictName = "receiver-io"
	// SyncStandbyWait: the primary's commits wait for this standby
	// (synchronous_commit with it synchronous).
	SyncStandbyWait VerdictName = "sync-standby-wait"
)
