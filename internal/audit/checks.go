package audit

// All lists every check in the order reports show them: publisher, subscriber,
// the ones comparing both sides, then a physical standby's. Each lives in its
// own file.
var All = []Check{
	// publisher
	walLevel,
	walSendersHeadroom,
	slotsHeadroom,
	inactiveSlot,
	slotWALStatus,
	slotWALKeepSize,
	oldCatalogXmin,
	decodingSpill,
	noReplicaIdentity,
	replicaIdentityFull,
	rowFilter,
	slotsPerDatabase,
	partitionedPublication,
	failoverSafety,
	// subscriber
	fullIdentityNoIndex,
	extraSubscriberIndexes,
	replicaTriggers,
	applyRowCosts,
	subscriptionStopped,
	applyErrors,
	tablesNotReady,
	binaryTransfer,
	streamingOff,
	workerHeadroom,
	limitsInUse,
	partitionedOneSubscription,
	// both
	columnMismatch,
	replicaIdentityMismatch,
	// physical standby (and its primary)
	standbyDelayUnbounded,
	standbyFeedbackXmin,
	standbyApplyDelay,
	standbyWALCompression,
	standbySlotUnbounded,
	standbySyncCommit,
	standbyRecoveryPrefetch,
	standbyStatusInterval,
}
