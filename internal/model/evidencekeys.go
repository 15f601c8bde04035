package model

// The kinds of evidence line about a limiting stage (evidence_stage.go).
const (
	// EvWalsenderIO: the walsender's share of probes in I/O waits
	// (probe_share).
	EvWalsenderIO EvidenceKey = "walsender-io"
	// EvWalsenderStandby: the walsender's share of probes waiting for
	// physical standbys to confirm (probe_share).
	EvWalsenderStandby EvidenceKey = "walsender-standby-wait"
	// EvFailoverSlot: the slot is a failover slot whose walsender waits for
	// synchronized_standby_slots.
	EvFailoverSlot EvidenceKey = "failover-slot"
	// EvWalsenderOwnWaits: the walsender's share of time on its own
	// resources (own_wait_share).
	EvWalsenderOwnWaits EvidenceKey = "walsender-own-waits"
	// EvWalsenderNoWait: without /proc, the walsender's share of probes
	// with no wait event (busy_share).
	EvWalsenderNoWait EvidenceKey = "walsender-no-wait"
	// EvWalsenderRunQueue: the walsender's run-queue share and the core it
	// ran (runqueue_share, cpu_share).
	EvWalsenderRunQueue EvidenceKey = "walsender-run-queue"
	// EvStaleWaitEvents: the walsender's wait events are stale while it
	// waits for a CPU.
	EvStaleWaitEvents EvidenceKey = "stale-wait-events"
	// EvWalsenderCPU: the walsender's CPU and run queue (cpu_share,
	// runqueue_share).
	EvWalsenderCPU EvidenceKey = "walsender-cpu"
	// EvNoSubscriber: no subscriber observed.
	EvNoSubscriber EvidenceKey = "no-subscriber"
	// EvApplyWaitingForData: the apply worker's share of probes waiting
	// for data (probe_share).
	EvApplyWaitingForData EvidenceKey = "apply-waiting-for-data"
	// EvApplyOwnWaits: an apply-side stage's share of time (or, without
	// /proc, of probes) on its own resources (own_wait_share).
	EvApplyOwnWaits EvidenceKey = "apply-own-waits"
	// EvApplyNoWait: without /proc, an apply-side stage's share of probes
	// with no wait event (busy_share).
	EvApplyNoWait EvidenceKey = "apply-no-wait"
	// EvApplyWaitedForWork: how little an apply-side stage waited for work
	// (probe_share).
	EvApplyWaitedForWork EvidenceKey = "apply-waited-for-work"
	// EvApplyRunQueue: a starved apply-side stage's run queue and CPU
	// (runqueue_share, cpu_share).
	EvApplyRunQueue EvidenceKey = "apply-run-queue"
	// EvApplyCPU: a busy apply-side stage's CPU and its share of probes
	// with no wait event (cpu_share, no_wait_share).
	EvApplyCPU EvidenceKey = "apply-cpu"
	// EvApplyGetsCPU: a busy apply-side stage's run queue: it gets the CPU
	// it asks for (runqueue_share).
	EvApplyGetsCPU EvidenceKey = "apply-gets-cpu"
	// EvHostBusy: a side's host CPU busy share (busy_share).
	EvHostBusy EvidenceKey = "host-busy"
	// EvContention: a side's burst measured from inside the server
	// (stretch, bursts, runqueue_share, late_median_ms, late_p90_ms).
	EvContention EvidenceKey = "contention"
	// EvCompetingLoad: the load that shared a starved stage's CPUs: client
	// backends by application_name and user, other processes by command
	// and pid, with their CPU share (/proc) or how many were active
	// (pg_stat_activity) (cpu_share, active_backends).
	EvCompetingLoad EvidenceKey = "competing-load"
	// EvWalsenderStage: the walsender's figures, or that it was not
	// measured (cpu_share, runqueue_share, busy_share, own_wait_share,
	// blocked_share, starved_share).
	EvWalsenderStage EvidenceKey = "walsender-stage"
	// EvApplyStage: the apply worker's figures, as EvWalsenderStage.
	EvApplyStage EvidenceKey = "apply-stage"
	// EvApplyRowCost: the apply worker's CPU per row applied over the
	// subscription's tables, and its CPU per byte of WAL written split into
	// what the calibrated cost of that WAL explains and the rest, with the
	// setup's per-row cost sources (cpu_per_row_s, rows, explained_share,
	// unexplained_share); or that its CPU was not measured (rowcost.go).
	EvApplyRowCost EvidenceKey = "apply-row-cost"
)

// The kinds of evidence line about the link (evidence_stage.go).
const (
	// EvWalsenderBlockedOnCPU: the walsender in WalSenderWriteData while on
	// a CPU (blocked_share, busy_share).
	EvWalsenderBlockedOnCPU EvidenceKey = "walsender-blocked-on-cpu"
	// EvSocketBlocked: the walsender blocked on the socket (blocked_share,
	// probe_share).
	EvSocketBlocked EvidenceKey = "socket-blocked"
	// EvWalsenderNotSaturated: the walsender's CPU, run queue and use
	// (cpu_share, runqueue_share, utilisation).
	EvWalsenderNotSaturated EvidenceKey = "walsender-not-saturated"
	// EvApplyStarvedBusy: the apply worker waiting for data, and its use
	// (probe_share, utilisation).
	EvApplyStarvedBusy EvidenceKey = "apply-starved-busy"
	// EvLinkHeldBacklog: a small backlog drained at the link's pace
	// (start_bytes, median_bytes, end_bytes).
	EvLinkHeldBacklog EvidenceKey = "link-held-backlog"
)

// The kinds of evidence line a verdict's diagnosis adds (evidence.go).
const (
	// EvBlocker: a session that held a lock an apply-side worker waited
	// for (pid, xact_age_s).
	EvBlocker EvidenceKey = "blocker"
	// EvSyncStandby: the apply worker's share of probes waiting for the
	// subscriber's synchronous standby (probe_share).
	EvSyncStandby EvidenceKey = "sync-standby"
	// EvQuota: a cgroup that ran out of its CPU quota (period_share,
	// throttled_s_per_s, host_busy_share).
	EvQuota EvidenceKey = "cpu-quota"
	// EvAlsoIO: a stage that also waits on I/O (window_share,
	// probe_share).
	EvAlsoIO EvidenceKey = "also-io"
	// EvAlsoCPU: a stage that also runs on a CPU (window_share).
	EvAlsoCPU EvidenceKey = "also-cpu"
	// EvNothingApplied: nothing was applied during the window.
	EvNothingApplied EvidenceKey = "nothing-applied"
	// EvParallelWorker: the parallel apply worker measured (pid, workers).
	EvParallelWorker EvidenceKey = "parallel-worker"
	// EvParallelLeader: the leader hands large transactions to parallel
	// apply workers.
	EvParallelLeader EvidenceKey = "parallel-leader"
)

// The kinds of evidence line about the whole path (evidence.go,
// evidence_path.go).
const (
	// EvRivals: subscriptions that claim one slot (subscriptions).
	EvRivals EvidenceKey = "rival-subscriptions"
	// EvNextLimit: the stage that limits next (headroom).
	EvNextLimit EvidenceKey = "next-limit"
	// EvNoNextLimit: no other stage is 10% busy.
	EvNoNextLimit EvidenceKey = "no-next-limit"
	// EvLagTime: the lag in time (lag_s, drain_s, flush_lag_s).
	EvLagTime EvidenceKey = "lag-time"
	// EvRates: what was generated, decoded and confirmed
	// (generated_bytes_per_s, decoded_bytes_per_s, confirmed_bytes_per_s,
	// window_s, ticks).
	EvRates EvidenceKey = "path-rates"
	// EvTablesNotReady: the subscription's tables still in their initial
	// synchronisation (tables).
	EvTablesNotReady EvidenceKey = "tables-synchronising"
	// EvSpilled: what the walsender spilled to disk (spilled_bytes).
	EvSpilled EvidenceKey = "spilled"
	// EvConsumedVsGenerated: what was consumed against what was generated
	// (consumed_bytes_per_s, generated_bytes_per_s, window_s).
	EvConsumedVsGenerated EvidenceKey = "consumed-vs-generated"
	// EvFewProbes: too few wait-event probes (walsender_probes,
	// apply_probes).
	EvFewProbes EvidenceKey = "few-probes"
	// EvBothStarved: the walsender and the apply worker both on the run
	// queue (walsender_runqueue_share, apply_runqueue_share).
	EvBothStarved EvidenceKey = "both-starved"
	// EvCaughtUpLag: the median unconfirmed WAL of a caught-up path
	// (median_bytes, window_s).
	EvCaughtUpLag EvidenceKey = "caught-up-lag"
	// EvNoStageSaturated: the stages' use on a caught-up path
	// (walsender_utilisation, apply_utilisation).
	EvNoStageSaturated EvidenceKey = "no-stage-saturated"
	// EvSilentLink: the apply worker received nothing while WAL was
	// generated (silent_s, generated_bytes_per_s).
	EvSilentLink EvidenceKey = "silent-link"
	// EvFrozenWaits: the two processes' waits on a frozen connection
	// (blocked_share, starved_share).
	EvFrozenWaits EvidenceKey = "frozen-waits"
	// EvAllSent: the walsender has sent everything (probe_share,
	// not_yet_sent_bytes).
	EvAllSent EvidenceKey = "all-sent"
	// EvConsumerReported: what the consumer reported writing and
	// confirming (write_behind_bytes, flush_behind_bytes).
	EvConsumerReported EvidenceKey = "consumer-reported"
	// EvUnconfirmed: the WAL that stays unconfirmed (unconfirmed_bytes).
	EvUnconfirmed EvidenceKey = "unconfirmed"
)

// The kinds of evidence line about a tablesync slot's copy
// (evidence_sync.go).
const (
	// EvCopyFailed: the subscription's sync errors rose (sync_errors).
	EvCopyFailed EvidenceKey = "copy-failed"
	// EvSyncSlotNameOnly: a tablesync slot known by its name (sub_oid).
	EvSyncSlotNameOnly EvidenceKey = "sync-slot-name-only"
	// EvSyncSlotUnowned: a tablesync slot whose subscription was not
	// observed (sub_oid).
	EvSyncSlotUnowned EvidenceKey = "sync-slot-unowned"
	// EvSyncSlotLeftover: a tablesync slot with no copy under way
	// (sub_oid).
	EvSyncSlotLeftover EvidenceKey = "sync-slot-leftover"
	// EvCopyProgress: a table's copy (copied_bytes, total_bytes,
	// copied_share, bytes_per_s, left_s).
	EvCopyProgress EvidenceKey = "copy-progress"
	// EvCopyStill: a COPY that did not advance (copied_bytes).
	EvCopyStill EvidenceKey = "copy-still"
	// EvCopyOneTick: a COPY seen at one tick only (copied_bytes).
	EvCopyOneTick EvidenceKey = "copy-one-tick"
	// EvCopyUnseen: a COPY not seen in pg_stat_progress_copy.
	EvCopyUnseen EvidenceKey = "copy-unseen"
	// EvSyncTables: the subscription's tables not yet ready and its
	// tablesync workers (tables, workers).
	EvSyncTables EvidenceKey = "sync-tables"
	// EvSyncSlotInactive: a tablesync slot inactive during its COPY.
	EvSyncSlotInactive EvidenceKey = "sync-slot-inactive"
)

// The kinds of evidence line about a large transaction in flight
// (evidence_txn.go).
const (
	// EvTxnSending: the walsender sending one transaction
	// (txn_bytes, sub_wal_bytes_per_s).
	EvTxnSending EvidenceKey = "txn-sending"
	// EvTxnUnconfirmed: the slot's unconfirmed WAL says little during a
	// transaction (unconfirmed_bytes).
	EvTxnUnconfirmed EvidenceKey = "txn-unconfirmed"
	// EvTxnHeld: the WAL the slot holds back (held_bytes).
	EvTxnHeld EvidenceKey = "txn-held"
	// EvTxnSpilled: what the walsender spilled of it (spilled_bytes).
	EvTxnSpilled EvidenceKey = "txn-spilled"
	// EvTxnDecoding: the walsender decoding while nothing is confirmed
	// (decoded_bytes).
	EvTxnDecoding EvidenceKey = "txn-decoding"
	// EvTxnOpen: a session holding a writing transaction open (pid, age_s,
	// xid_age).
	EvTxnOpen EvidenceKey = "txn-open"
	// EvTxnKeepalive: keepalives move confirmed_flush_lsn past the open
	// transaction (unconfirmed_bytes).
	EvTxnKeepalive EvidenceKey = "txn-keepalive"
	// EvTxnWhole: the subscriber receives the transaction whole when it
	// commits.
	EvTxnWhole EvidenceKey = "txn-whole"
	// EvPhysicalRates: a physical path's WAL generated, sent, received
	// and replayed per second (generated_bytes_per_s, sent_bytes_per_s,
	// received_bytes_per_s, replayed_bytes_per_s).
	EvPhysicalRates EvidenceKey = "physical-rates"
	// EvPhysicalBacklog: the WAL behind at each stage of a physical path
	// (unsent_bytes, in_flight_bytes, unreplayed_bytes).
	EvPhysicalBacklog EvidenceKey = "physical-backlog"
	// EvReplayWaits: the startup process's probes by class: on a CPU,
	// waiting for WAL, reads, conflicts, pause, delay (cpu, waiting_for_wal,
	// data_read, wal_read, conflict, paused, apply_delay, probes).
	EvReplayWaits EvidenceKey = "replay-waits"
	// EvReplayCPU: the startup process's CPU and run queue from /proc
	// (cpu_share, runqueue_share).
	EvReplayCPU EvidenceKey = "replay-cpu"
	// EvReceiverWaits: the WAL receiver's share of probes waiting for data
	// and on its own writes and flushes (starved_share, own_wait_share).
	EvReceiverWaits EvidenceKey = "receiver-waits"
	// EvPhysWalsender: the physical walsender's figures (utilisation,
	// blocked_share, starved_share).
	EvPhysWalsender EvidenceKey = "physical-walsender"
	// EvReplayPauseState: the standby's replay pause state.
	EvReplayPauseState EvidenceKey = "replay-pause-state"
	// EvApplyDelaySetting: recovery_min_apply_delay (delay_s).
	EvApplyDelaySetting EvidenceKey = "apply-delay-setting"
	// EvConflictHolder: a standby session holding replay back: its pid,
	// user, start, what it holds, and when max_standby_streaming_delay
	// cancels it (pid, held_s, max_delay_s).
	EvConflictHolder EvidenceKey = "conflict-holder"
	// EvConflictsCancelled: the standby queries replay cancelled in the
	// window, by kind (cancelled).
	EvConflictsCancelled EvidenceKey = "conflicts-cancelled"
	// EvRecoveryPrefetch: pg_stat_recovery_prefetch over the window
	// (prefetch, hit, skip_fpw, io_depth).
	EvRecoveryPrefetch EvidenceKey = "recovery-prefetch"
	// EvStartupIO: the startup process's reads from pg_stat_io over the
	// window (reads, hits, read_ms).
	EvStartupIO EvidenceKey = "startup-io"
	// EvSyncRepWaits: the standby's sync_state and the share of the
	// primary's probes with a backend waiting on SyncRep (probe_share).
	EvSyncRepWaits EvidenceKey = "syncrep-waits"
	// EvReplayTimestamp: now() - pg_last_xact_replay_timestamp() on the
	// standby, and why it is not the lag when nothing is left to replay
	// (age_s).
	EvReplayTimestamp EvidenceKey = "replay-timestamp"
	// EvReplayLagColumn: the walsender's replay_lag beside the WAL not
	// replayed (replay_lag_s, unreplayed_bytes).
	EvReplayLagColumn EvidenceKey = "replay-lag-column"
)
