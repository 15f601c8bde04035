package model

// The audit checks whose findings the model reads by ID (package audit
// defines them; docs/checks/<id>.md): the one place their IDs are written
// in this package, so that a typed check ID replaces them here alone.
const (
	checkReplicaTriggers            = "replica-triggers"
	checkFullIdentityNoIndex        = "full-identity-no-index"
	checkColumnMismatch             = "column-mismatch"
	checkIdentityMismatch           = "replica-identity-mismatch"
	checkSubscriptionStopped        = "subscription-stopped"
	checkApplyErrors                = "apply-errors"
	checkRowFilter                  = "row-filter"
	checkExtraSubscriberIndex       = "extra-subscriber-indexes"
	checkReplicaIdentityFull        = "replica-identity-full"
	checkBinaryTransfer             = "binary-transfer"
	checkStreamingOff               = "streaming-off"
	checkDecodingSpill              = "decoding-spill"
	checkPartitionedOneSubscription = "partitioned-one-subscription"
	checkWorkerHeadroom             = "worker-headroom"
	checkSlotWalStatus              = "slot-wal-status"
	checkTablesNotReady             = "tables-not-ready"
)
