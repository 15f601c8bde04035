package model

// The remedies nothing decides on yet: each keyed all the same, so that
// code that learns more about the system (its setup, the what-if model)
// can tell which remedy it is from its key.
const (
	// KeyNothingNeeded: nothing to do (a caught-up path).
	KeyNothingNeeded AdviceKey = "nothing-needed"
	// KeyFixStop: fix what stops the path (the cause named above).
	KeyFixStop AdviceKey = "fix-stop"
	// KeySubscriberCPU: CPU for the subscriber, or competing load moved off
	// its cores.
	KeySubscriberCPU AdviceKey = "subscriber-cpu"
	// KeyPublisherCPU: CPU headroom on the publisher.
	KeyPublisherCPU AdviceKey = "publisher-cpu"
	// KeyBothCPU: CPU for both servers.
	KeyBothCPU AdviceKey = "both-cpu"
	// KeyPublisherFasterCore: a faster CPU core for the publisher.
	KeyPublisherFasterCore AdviceKey = "publisher-faster-core"
	// KeySubscriberFasterCPU: a faster CPU for the subscriber.
	KeySubscriberFasterCPU AdviceKey = "subscriber-faster-cpu"
	// KeySubscriberDisk: faster disk for the subscriber's WAL and data.
	KeySubscriberDisk AdviceKey = "subscriber-disk"
	// KeySubscriberMemory: more memory on the subscriber for the data files
	// the apply worker reads.
	KeySubscriberMemory AdviceKey = "subscriber-memory"
	// KeyEndLockHolders: end or shorten the local sessions that hold locks
	// on the replicated tables or rows.
	KeyEndLockHolders AdviceKey = "end-lock-holders"
	// KeyEndBlocker: end or shorten the one blocking session named.
	KeyEndBlocker AdviceKey = "end-blocker"
	// KeySynchronousCommitOff: synchronous_commit = off on the subscription.
	KeySynchronousCommitOff AdviceKey = "synchronous-commit-off"
	// KeyFasterSyncStandby: a faster or closer synchronous standby for the
	// subscriber.
	KeyFasterSyncStandby AdviceKey = "faster-sync-standby"
	// KeyFindSleep: find what sleeps in the apply worker.
	KeyFindSleep AdviceKey = "find-sleep"
	// KeyFindWait: find what the apply worker waits for.
	KeyFindWait AdviceKey = "find-wait"
	// KeyCPULimit: a higher CPU limit for a side's container or cgroup.
	KeyCPULimit AdviceKey = "cpu-limit"
	// KeyFewerUnderLimit: fewer processes sharing a CPU limit.
	KeyFewerUnderLimit AdviceKey = "fewer-under-limit"
	// KeyDiagnoseAgain: diagnose again once the present limit is relieved.
	KeyDiagnoseAgain AdviceKey = "diagnose-again"
	// KeyFindLinkHold: find what holds the network path between the
	// servers.
	KeyFindLinkHold AdviceKey = "find-link-hold"
	// KeyTimeouts: shorter replication timeouts or TCP keepalives.
	KeyTimeouts AdviceKey = "timeouts"
	// KeyDropLeftoverSlot: drop a leftover tablesync slot.
	KeyDropLeftoverSlot AdviceKey = "drop-leftover-slot"
	// KeyFindOwner: find the subscription a tablesync slot belongs to (it
	// was not observed) before dropping anything.
	KeyFindOwner AdviceKey = "find-owner"
	// KeyWALStorage: WAL on faster storage (the publisher's).
	KeyWALStorage AdviceKey = "wal-storage"
	// KeyPageCache: memory for the publisher's page cache and a lag small
	// enough that the WAL is still cached.
	KeyPageCache AdviceKey = "page-cache"
	// KeyStandbyBack: bring a synchronized standby back or let it catch up.
	KeyStandbyBack AdviceKey = "standby-back"
	// KeyRemoveStandby: remove a standby gone for good from
	// synchronized_standby_slots.
	KeyRemoveStandby AdviceKey = "remove-standby"
	// KeyCompressLink: compress the link.
	KeyCompressLink AdviceKey = "compress-link"
	// KeySendLess: publication column lists (or row filters) to send less.
	KeySendLess AdviceKey = "send-less"
	// KeyWaitForCopy: wait for a table's initial copy.
	KeyWaitForCopy AdviceKey = "wait-for-copy"
	// KeySyncWorkers: max_sync_workers_per_subscription above the tables
	// copied at once.
	KeySyncWorkers AdviceKey = "sync-workers"
	// KeyFasterCopy: a faster link or subscriber disk for a large table's
	// copy.
	KeyFasterCopy AdviceKey = "faster-copy"
	// KeyFasterConsumer: a faster consumer, or several on several slots.
	KeyFasterConsumer AdviceKey = "faster-consumer"
	// KeyCloserConsumer: more bandwidth or a closer consumer, for a
	// consumer that idles.
	KeyCloserConsumer AdviceKey = "closer-consumer"
	// KeyConfirmOften: make the consumer confirm more often.
	KeyConfirmOften AdviceKey = "confirm-often"
	// KeySmallerTransactions: smaller transactions on the publisher (or
	// the open one ended).
	KeySmallerTransactions AdviceKey = "smaller-transactions"
	// KeySlotWALCap: max_slot_wal_keep_size to cap the WAL a slot holds.
	KeySlotWALCap AdviceKey = "slot-wal-cap"
	// KeySampleLonger: sample a longer window.
	KeySampleLonger AdviceKey = "sample-longer"
	// KeyRunOnHosts: run lagscope on the servers' hosts (for /proc).
	KeyRunOnHosts AdviceKey = "run-on-hosts"
)

// The remedies the verdicts say do not help and no verdict offers (a
// "does not help" line otherwise reuses the key of the remedy it rules
// out: bandwidth, subscriber-disk, subscriber-cpu, publisher-cpu,
// both-cpu), keyed so that code that reads the setup can rule a line out.
const (
	// KeyAnySpeed: anything about the path's speed (bandwidth, CPU,
	// indexes, tuning), for a path that is stopped or made to wait.
	KeyAnySpeed AdviceKey = "any-speed"
	// KeyPublisherTuning: more CPU or tuning on the publisher.
	KeyPublisherTuning AdviceKey = "publisher-tuning"
	// KeySubscriberTuning: tuning the subscriber or its apply path.
	KeySubscriberTuning AdviceKey = "subscriber-tuning"
	// KeyHashPartitioning: hash partitioning the tables under one
	// subscription.
	KeyHashPartitioning AdviceKey = "hash-partitioning"
	// KeyRecreateSubscription: recreating the subscription.
	KeyRecreateSubscription AdviceKey = "recreate-subscription"
	// KeyMoveOtherWork: moving other work off a side's host.
	KeyMoveOtherWork AdviceKey = "move-other-work"
	// KeyOtherSide: more bandwidth, or tuning the side that does not limit.
	KeyOtherSide AdviceKey = "other-side"
	// KeyEitherSide: CPU or schema changes on either server.
	KeyEitherSide AdviceKey = "either-side"
)
