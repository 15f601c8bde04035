package model

// The remedies nothing decides on yet: each keyed all the same, so that
// code that learns more about the system (its setup, the what-if model)
// can tell which remedy it is from its key.
const (
	// KeyNothingNeeded: nothing to do (a caught-up path).
	KeyNothingNeeded RemedyID = "nothing-needed"
	// KeyFixStop: fix what stops the path (the cause named above).
	KeyFixStop RemedyID = "fix-stop"
	// KeyFindApplyError: find the apply error that stopped the path in the
	// subscriber's log, with its counters.
	KeyFindApplyError RemedyID = "find-apply-error"
	// KeySkipFailedTxn: skip the failing transaction at the finish LSN the
	// error's log line names (15+), or fix the data it fails on.
	KeySkipFailedTxn RemedyID = "skip-failed-txn"
	// KeyEnableAfterFix: enable the subscription, after the error's fix.
	KeyEnableAfterFix RemedyID = "enable-after-fix"
	// KeySubscriberCPU: CPU for the subscriber, or competing load moved off
	// its cores.
	KeySubscriberCPU RemedyID = "subscriber-cpu"
	// KeyPublisherCPU: CPU headroom on the publisher.
	KeyPublisherCPU RemedyID = "publisher-cpu"
	// KeyBothCPU: CPU for both servers.
	KeyBothCPU RemedyID = "both-cpu"
	// KeyPublisherFasterCore: a faster CPU core for the publisher.
	KeyPublisherFasterCore RemedyID = "publisher-faster-core"
	// KeySubscriberFasterCPU: a faster CPU for the subscriber.
	KeySubscriberFasterCPU RemedyID = "subscriber-faster-cpu"
	// KeySubscriberDisk: faster disk for the subscriber's WAL and data.
	KeySubscriberDisk RemedyID = "subscriber-disk"
	// KeySubscriberMemory: more memory on the subscriber for the data files
	// the apply worker reads.
	KeySubscriberMemory RemedyID = "subscriber-memory"
	// KeyEndLockHolders: end or shorten the local sessions that hold locks
	// on the replicated tables or rows.
	KeyEndLockHolders RemedyID = "end-lock-holders"
	// KeyEndBlocker: end or shorten the one blocking session named.
	KeyEndBlocker RemedyID = "end-blocker"
	// KeySynchronousCommitOff: synchronous_commit = off on the subscription.
	KeySynchronousCommitOff RemedyID = "synchronous-commit-off"
	// KeyFasterSyncStandby: a faster or closer synchronous standby for the
	// subscriber.
	KeyFasterSyncStandby RemedyID = "faster-sync-standby"
	// KeyFindSleep: find what sleeps in the apply worker.
	KeyFindSleep RemedyID = "find-sleep"
	// KeyFindWait: find what the apply worker waits for.
	KeyFindWait RemedyID = "find-wait"
	// KeyCPULimit: a higher CPU limit for a side's container or cgroup.
	KeyCPULimit RemedyID = "cpu-limit"
	// KeyFewerUnderLimit: fewer processes sharing a CPU limit.
	KeyFewerUnderLimit RemedyID = "fewer-under-limit"
	// KeyDiagnoseAgain: diagnose again once the present limit is relieved.
	KeyDiagnoseAgain RemedyID = "diagnose-again"
	// KeyFindLinkHold: find what holds the network path between the
	// servers.
	KeyFindLinkHold RemedyID = "find-link-hold"
	// KeyTimeouts: shorter replication timeouts or TCP keepalives.
	KeyTimeouts RemedyID = "timeouts"
	// KeyDropLeftoverSlot: drop a leftover tablesync slot.
	KeyDropLeftoverSlot RemedyID = "drop-leftover-slot"
	// KeyFindOwner: find the subscription a tablesync slot belongs to (it
	// was not observed) before dropping anything.
	KeyFindOwner RemedyID = "find-owner"
	// KeyWALStorage: WAL on faster storage (the publisher's).
	KeyWALStorage RemedyID = "wal-storage"
	// KeyPageCache: memory for the publisher's page cache and a lag small
	// enough that the WAL is still cached.
	KeyPageCache RemedyID = "page-cache"
	// KeyStandbyBack: bring a synchronized standby back or let it catch up.
	KeyStandbyBack RemedyID = "standby-back"
	// KeyRemoveStandby: remove a standby gone for good from
	// synchronized_standby_slots.
	KeyRemoveStandby RemedyID = "remove-standby"
	// KeyCompressLink: compress the link.
	KeyCompressLink RemedyID = "compress-link"
	// KeySendLess: publication column lists (or row filters) to send less.
	KeySendLess RemedyID = "send-less"
	// KeyWaitForCopy: wait for a table's initial copy.
	KeyWaitForCopy RemedyID = "wait-for-copy"
	// KeySyncWorkers: max_sync_workers_per_subscription above the tables
	// copied at once.
	KeySyncWorkers RemedyID = "sync-workers"
	// KeyFasterCopy: a faster link or subscriber disk for a large table's
	// copy.
	KeyFasterCopy RemedyID = "faster-copy"
	// KeyFasterConsumer: a faster consumer, or several on several slots.
	KeyFasterConsumer RemedyID = "faster-consumer"
	// KeyCloserConsumer: more bandwidth or a closer consumer, for a
	// consumer that idles.
	KeyCloserConsumer RemedyID = "closer-consumer"
	// KeyConfirmOften: make the consumer confirm more often.
	KeyConfirmOften RemedyID = "confirm-often"
	// KeySmallerTransactions: smaller transactions on the publisher (or
	// the open one ended).
	KeySmallerTransactions RemedyID = "smaller-transactions"
	// KeySlotWALCap: max_slot_wal_keep_size to cap the WAL a slot holds.
	KeySlotWALCap RemedyID = "slot-wal-cap"
	// KeySampleLonger: sample a longer window.
	KeySampleLonger RemedyID = "sample-longer"
	// KeyRunOnHosts: run lagscope on the servers' hosts (for /proc).
	KeyRunOnHosts RemedyID = "run-on-hosts"
)

// The remedies the verdicts say do not help and no verdict offers (a
// "does not help" line otherwise reuses the key of the remedy it rules
// out: bandwidth, subscriber-disk, subscriber-cpu, publisher-cpu,
// both-cpu), keyed so that code that reads the setup can rule a line out.
const (
	// KeyAnySpeed: anything about the path's speed (bandwidth, CPU,
	// indexes, tuning), for a path that is stopped or made to wait.
	KeyAnySpeed RemedyID = "any-speed"
	// KeyPublisherTuning: more CPU or tuning on the publisher.
	KeyPublisherTuning RemedyID = "publisher-tuning"
	// KeySubscriberTuning: tuning the subscriber or its apply path.
	KeySubscriberTuning RemedyID = "subscriber-tuning"
	// KeyHashPartitioning: hash partitioning the tables under one
	// subscription.
	KeyHashPartitioning RemedyID = "hash-partitioning"
	// KeyRecreateSubscription: recreating the subscription.
	KeyRecreateSubscription RemedyID = "recreate-subscription"
	// KeyMoveOtherWork: moving other work off a side's host.
	KeyMoveOtherWork RemedyID = "move-other-work"
	// KeyOtherSide: more bandwidth, or tuning the side that does not limit.
	KeyOtherSide RemedyID = "other-side"
	// KeyEitherSide: CPU or schema changes on either server.
	KeyEitherSide RemedyID = "either-side"
)

// The remedies of a physical standby (physical_texts.go).
const (
	// KeyResumeReplay: resume the standby's paused replay
	// (pg_wal_replay_resume()).
	KeyResumeReplay RemedyID = "resume-replay"
	// KeyRemoveApplyDelay: lower or remove recovery_min_apply_delay, when
	// the delay is not wanted.
	KeyRemoveApplyDelay RemedyID = "remove-apply-delay"
	// KeyCancelConflictHolder: cancel the one standby query named that
	// holds replay back, checked by its pid and backend_start.
	KeyCancelConflictHolder RemedyID = "cancel-conflict-holder"
	// KeyBoundStandbyDelay: a bounded max_standby_streaming_delay instead
	// of -1, so that replay cancels a conflicting query in time.
	KeyBoundStandbyDelay RemedyID = "bound-standby-delay"
	// KeyHotStandbyFeedback: hot_standby_feedback, which avoids snapshot
	// conflicts at the cost of the primary's vacuum.
	KeyHotStandbyFeedback RemedyID = "hot-standby-feedback"
	// KeyShorterStandbyQueries: shorter queries on the standby, or running
	// long reports elsewhere.
	KeyShorterStandbyQueries RemedyID = "shorter-standby-queries"
	// KeyReplayFasterCore: a faster CPU core for the standby: replay runs
	// in one process.
	KeyReplayFasterCore RemedyID = "replay-faster-core"
	// KeyFewerWALRecords: less WAL on the primary (fewer indexes, batched
	// writes), since replay's cost is per record.
	KeyFewerWALRecords RemedyID = "fewer-wal-records"
	// KeyStandbyCPU: CPU for the standby, or competing load moved off the
	// startup process's core.
	KeyStandbyCPU RemedyID = "standby-cpu"
	// KeyStandbyMemory: memory for the standby's shared_buffers and page
	// cache, for the data files replay reads.
	KeyStandbyMemory RemedyID = "standby-memory"
	// KeyReplayPrefetch: recovery_prefetch and a higher
	// maintenance_io_concurrency for read-bound replay (15+).
	KeyReplayPrefetch RemedyID = "replay-prefetch"
	// KeyStandbyDisk: faster storage for the standby's data files or
	// pg_wal.
	KeyStandbyDisk RemedyID = "standby-disk"
	// KeyAsyncStandby: the primary's commits not waiting for this standby
	// (synchronous_standby_names, synchronous_commit), or a faster standby.
	KeyAsyncStandby RemedyID = "async-standby"
	// KeyWALCompression: wal_compression on the primary, for a link-bound
	// physical path (smaller full-page images).
	KeyWALCompression RemedyID = "wal-compression"
	// KeyReceiverRunning: start the standby's WAL receiver: fix
	// primary_conninfo, the primary's reachability or max_wal_senders.
	KeyReceiverRunning RemedyID = "receiver-running"
)
