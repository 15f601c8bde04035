package model

import "github.com/lagscope/lagscope/internal/audit"

// The audit checks whose findings the model reads by ID (package audit
// defines them; docs/checks/<id>.md): the one place their IDs are written
// in this package, as strings of audit's typed constants.
const (
	checkReplicaTriggers            = string(audit.CheckReplicaTriggers)
	checkApplyRowCosts              = string(audit.CheckApplyRowCosts)
	checkFullIdentityNoIndex        = string(audit.CheckFullIdentityNoIndex)
	checkColumnMismatch             = string(audit.CheckColumnMismatch)
	checkIdentityMismatch           = string(audit.CheckReplicaIdentityMismatch)
	checkSubscriptionStopped        = string(audit.CheckSubscriptionStopped)
	checkApplyErrors                = string(audit.CheckApplyErrors)
	checkRowFilter                  = string(audit.CheckRowFilter)
	checkExtraSubscriberIndex       = string(audit.CheckExtraSubscriberIndexes)
	checkReplicaIdentityFull        = string(audit.CheckReplicaIdentityFull)
	checkBinaryTransfer             = string(audit.CheckBinaryTransfer)
	checkStreamingOff               = string(audit.CheckStreamingOff)
	checkDecodingSpill              = string(audit.CheckDecodingSpill)
	checkPartitionedOneSubscription = string(audit.CheckPartitionedOneSubscription)
	checkWorkerHeadroom             = string(audit.CheckWorkerHeadroom)
	checkSlotWalStatus              = string(audit.CheckSlotWALStatus)
	checkTablesNotReady             = string(audit.CheckTablesNotReady)
)
