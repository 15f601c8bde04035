package model

// VerdictName names a verdict: the one type of verdict names, whose
// constants are listed below and in Table.
type VerdictName string

// Verdict names (see Classify and decide for when each is given).
const (
	CaughtUp           VerdictName = "caught-up"
	Stalled            VerdictName = "stalled"
	SubscriberApplyCPU VerdictName = "subscriber-apply-cpu"
	SubscriberStarved  VerdictName = "subscriber-starved"
	SubscriberWaits    VerdictName = "subscriber-waits"
	WalsenderDecodeCPU VerdictName = "walsender-decode-cpu"
	WalsenderStarved   VerdictName = "walsender-starved"
	WalsenderReadIO    VerdictName = "walsender-read-io"
	// WalsenderWaitsStandby: a failover slot's walsender waits for the
	// standbys in synchronized_standby_slots (17+).
	WalsenderWaitsStandby VerdictName = "walsender-waits-standby"
	Network               VerdictName = "network"
	Inconclusive          VerdictName = "inconclusive"
	InitialSync           VerdictName = "initial-sync"
	// LargeTransaction is a large transaction in flight without streaming:
	// open on the publisher, being decoded, or being sent and applied
	// (see LargeTxn).
	LargeTransaction VerdictName = "large-transaction"
	// NetworkOrConsumer is the walsender blocked on the socket while the
	// consumer is not observed: the link or the consumer limits.
	NetworkOrConsumer VerdictName = "network-or-consumer"
	// ConfirmationLag is a consumer that received everything and confirms
	// late (a lazy confirmer).
	ConfirmationLag VerdictName = "confirmation-lag"
)

// Spec is what the rest of lagscope derives from a verdict's name: the
// exporter's label values, the report's exit code, the docs' pages, how its
// confidence is lowered and which checks of the setup bear on it.
type Spec struct {
	Name VerdictName
	// Finding says the path is not caught up (diagnose exits 1): every
	// verdict but caught-up and a table's initial copy.
	Finding bool
	// Fact says the verdict rests on positions and on what the servers
	// report, not on wait-event shares: few probes do not lower its
	// confidence (see finish).
	Fact bool
	// Stop says the path is stopped: a restart looks the same for a while,
	// so sampling gaps cap its confidence (capStalledAfterGap).
	Stop bool
	// Checks are the audit checks whose findings bear on the verdict: in
	// diagnose, their findings for the path's subscription and tables are
	// its cause and first remedies (nil: none do).
	Checks []string
}

// Table is every verdict, in the order metrics and docs list them: the one
// list of verdict names (a test checks it against the advice table).
var Table = []Spec{
	{Name: CaughtUp, Fact: true},
	{Name: Stalled, Finding: true, Fact: true, Stop: true,
		Checks: []string{checkSubscriptionStopped, checkApplyErrors, checkColumnMismatch, checkIdentityMismatch, checkSlotWalStatus, checkTablesNotReady}},
	{Name: SubscriberApplyCPU, Finding: true,
		Checks: []string{checkReplicaTriggers, checkApplyRowCosts, checkFullIdentityNoIndex, checkReplicaIdentityFull, checkExtraSubscriberIndex, checkBinaryTransfer, checkPartitionedOneSubscription}},
	{Name: SubscriberStarved, Finding: true, Checks: []string{checkWorkerHeadroom}},
	{Name: SubscriberWaits, Finding: true, Checks: []string{checkReplicaTriggers, checkApplyErrors}},
	{Name: WalsenderDecodeCPU, Finding: true, Checks: []string{checkRowFilter, checkDecodingSpill}},
	{Name: WalsenderStarved, Finding: true},
	{Name: WalsenderReadIO, Finding: true},
	{Name: WalsenderWaitsStandby, Finding: true},
	{Name: Network, Finding: true},
	{Name: NetworkOrConsumer, Finding: true},
	{Name: ConfirmationLag, Finding: true},
	{Name: LargeTransaction, Finding: true, Checks: []string{checkStreamingOff, checkDecodingSpill}},
	{Name: InitialSync, Fact: true},
	{Name: ReplayCPU, Finding: true},
	{Name: ReplayStarved, Finding: true},
	{Name: ReplayReadIO, Finding: true},
	{Name: ReplayConflict, Finding: true},
	{Name: ReplayPaused, Finding: true, Fact: true, Stop: true},
	{Name: ReplayDelayed, Finding: true},
	{Name: ReceiverIO, Finding: true},
	{Name: SyncStandbyWait, Finding: true},
	{Name: Inconclusive, Finding: true, Checks: []string{checkReplicaTriggers, checkApplyRowCosts, checkFullIdentityNoIndex, checkExtraSubscriberIndex}},
}

// SpecOf is verdict name's row of Table; an unknown name (a report from a
// newer lagscope) is a finding, and nothing else.
func SpecOf(name VerdictName) Spec {
	for _, s := range Table {
		if s.Name == name {
			return s
		}
	}
	return Spec{Name: name, Finding: true}
}

// Names lists Table's verdict names, in its order.
func Names() []VerdictName {
	out := make([]VerdictName, len(Table))
	for i, s := range Table {
		out[i] = s.Name
	}
	return out
}

// IsFinding says whether verdict name is a finding (Spec.Finding); an
// unknown name is one (a report from a newer lagscope).
func IsFinding(name VerdictName) bool { return SpecOf(name).Finding }

// advice is what helps and what does not, per verdict.
type advice struct {
	headline string
	helps    []Advice
	not      []Advice
}

var adviceFor = map[VerdictName]advice{
	CaughtUp: {headline: "the subscriber keeps up: nothing limits this path now",
		helps: []Advice{{KeyNothingNeeded, "nothing needed", nil, nil}}},
	Stalled: {headline: "nothing is being consumed: the path is stopped, not slow",
		helps: []Advice{{KeyFixStop, "fix the cause named above (enable the subscription, fix the apply error, restart the consumer, recreate a lost slot)", nil, nil}},
		not:   []Advice{{KeyAnySpeed, "anything about speed: bandwidth, CPU, indexes and tuning do not move a stopped path (a schema fix named above is not about speed: it removes the stop)", nil, nil}}},
	SubscriberApplyCPU: {headline: "the subscriber's apply worker is the limit: it runs on a full core",
		helps: []Advice{
			{KeyNarrowerIdentity, "a narrower replica identity (default/index instead of FULL), and a usable index when FULL is required", nil, nil},
			{KeyFewerIndexes, "fewer indexes on the subscriber's copy of the replicated tables", nil, nil},
			{KeyBinary, "binary = true on the subscription (same major versions and architectures)", nil, nil},
			{KeyStreamingParallel, "streaming = parallel (16+) for large transactions", nil, nil},
			{KeySplitSubscriptions, "splitting the tables over several subscriptions, each with its own apply worker (loses cross-subscription atomicity)", nil, nil}},
		not: []Advice{
			{KeyBandwidth, "more bandwidth: the link is not what limits", nil, nil},
			{KeyPublisherTuning, "more CPU or tuning on the publisher", nil, nil},
			{KeyHashPartitioning, "hash partitioning under one subscription: one apply worker applies all partitions (measured 0.79x the drain of the plain table: docs/reproduction.md)", nil, nil}}},
	SubscriberStarved: {headline: "the apply worker is runnable but waits for a CPU: the subscriber host is saturated",
		helps: []Advice{{KeySubscriberCPU, "CPU for the subscriber, or moving competing load off its cores", nil, nil}},
		not:   []Advice{{KeySubscriberTuning, "tuning the apply path: it is not running, so making it cheaper changes little", nil, nil}, {KeyBandwidth, "more bandwidth", nil, nil}}},
	SubscriberWaits: {headline: "the apply worker mostly waits on I/O or locks on the subscriber",
		helps: []Advice{{KeySubscriberDisk, "faster disk for the subscriber's WAL and data", nil, nil}, {KeyEndLockHolders, "ending local sessions that hold locks on replicated rows", nil, nil}, {KeySynchronousCommitOff, "synchronous_commit = off for the subscription (the default)", nil, nil}},
		not:   []Advice{{KeySubscriberCPU, "more CPU", nil, nil}, {KeyBandwidth, "more bandwidth", nil, nil}}},
	WalsenderDecodeCPU: {headline: "the walsender is the limit: decoding runs on a full core while the apply worker waits for data",
		helps: []Advice{{KeyFewerSlots, "fewer slots decoding the same WAL (each decodes all of it)", nil, nil}, {KeyRowFilters, "simpler or no publication row filters", nil, nil}, {KeyDecodingWorkMem, "logical_decoding_work_mem large enough to avoid spill", nil, nil}, {KeyStreaming, "streaming for large transactions", nil, nil}, {KeyPublisherFasterCore, "a faster CPU core for the publisher: each slot is decoded by one walsender process, so more cores do not help it", nil, nil}},
		not:   []Advice{{KeyBandwidth, "more bandwidth", nil, nil}, {KeySubscriberTuning, "subscriber tuning: it is waiting for data", nil, nil}}},
	WalsenderStarved: {headline: "the walsender is starved of CPU on a busy publisher: it is runnable but not running",
		helps: []Advice{{KeyPublisherCPU, "CPU headroom on the publisher (fewer competing backends, more cores, moving the load)", nil, nil}},
		not:   []Advice{{KeyBandwidth, "more bandwidth: the walsender, not the link, limits the drain rate", nil, nil}, {KeySubscriberTuning, "subscriber tuning: it is waiting for data", nil, nil}}},
	WalsenderReadIO: {headline: "the walsender mostly waits for WAL reads from disk",
		helps: []Advice{{KeyWALStorage, "WAL on faster storage (a cloud volume's throughput or IOPS limit counts: check the volume's metrics)", nil, nil}, {KeyPageCache, "memory for the page cache, and keeping the lag small enough that the WAL is still cached when the walsender reads it", nil, nil}},
		not:   []Advice{{KeyPublisherCPU, "more CPU", nil, nil}, {KeyBandwidth, "more bandwidth", nil, nil}, {KeySubscriberTuning, "subscriber tuning: it is waiting for data", nil, nil}}},
	WalsenderWaitsStandby: {headline: "the walsender holds changes back until physical standbys confirm them (synchronized_standby_slots): a lagging or absent standby limits this path",
		helps: []Advice{{KeyStandbyBack, "bringing the standby back or letting it catch up (pg_stat_replication on the publisher, pg_replication_slots for its slot)", nil, nil}, {KeyRemoveStandby, "removing a standby that is gone for good from synchronized_standby_slots (ALTER SYSTEM, then pg_reload_conf())", nil, nil}},
		not:   []Advice{{KeyAnySpeed, "CPU, bandwidth or subscriber tuning: the walsender is made to wait", nil, nil}}},
	Network: {headline: "the network is the limit: the walsender waits for the socket while the apply worker waits for data",
		helps: []Advice{{KeyBandwidth, "more bandwidth (a 2x link gave 1.86x the drain where the link limited: docs/reproduction.md)", nil, nil}, {KeyCompressLink, "compressing the link (a compressing tunnel: the replication protocol itself is not compressed)", nil, nil}, {KeySendLess, "publication column lists to send less", nil, nil}},
		not:   []Advice{{KeyBothCPU, "CPU on either side", nil, nil}, {KeySubscriberTuning, "subscriber tuning", nil, nil}}},
	InitialSync: {headline: "a table's initial copy is in progress: this tablesync slot is copying, not stalled",
		helps: []Advice{{KeyWaitForCopy, "waiting: the table joins the subscription's stream once copied (srsubstate 'r' in pg_subscription_rel)", nil, nil}, {KeySyncWorkers, "max_sync_workers_per_subscription above the number of tables copied at once, when several wait", nil, nil}, {KeyFasterCopy, "a faster link or subscriber disk for large tables", nil, nil}},
		not:   []Advice{{KeyRecreateSubscription, "recreating the subscription: the copy would start over", nil, nil}}},
	NetworkOrConsumer: {headline: "the walsender waits for the socket: the network or the consumer reads slower than it sends (the consumer is not observed)",
		helps: []Advice{{KeyFasterConsumer, "if the consumer is busy (its CPU, its disk, what it writes to): a faster consumer, or several consumers on several slots", nil, nil}, {KeyCloserConsumer, "if the consumer idles: more bandwidth or a closer consumer", nil, nil}, {KeySendLess, "publication column lists or row filters to send less", nil, nil}},
		not:   []Advice{{KeyPublisherTuning, "CPU or tuning on the publisher: the walsender is not busy", nil, nil}}},
	ConfirmationLag: {headline: "everything is sent and received: the consumer confirms late, so the slot holds the WAL back",
		helps: []Advice{{KeyNothingNeeded, "nothing for the replication's speed: changes reach the consumer at once", nil, nil}, {KeyConfirmOften, "if the held WAL matters (pg_wal size, what a reconnect re-sends): make the consumer confirm more often (Debezium: offset.flush.interval.ms; pg_recvlogical: --fsync-interval, --status-interval)", nil, nil}},
		not:   []Advice{{KeyAnySpeed, "more bandwidth, CPU or subscriber tuning: nothing waits on them", nil, nil}}},
	LargeTransaction: {headline: "a large transaction is in flight without streaming"},
	ReplayCPU: {headline: "the standby's startup process is the limit: replay runs on a full core (one process replays all the WAL)",
		helps: []Advice{{KeyReplayFasterCore, "a faster CPU core for the standby: replay runs in one process, so more cores do not help it", nil, nil},
			{KeyFewerWALRecords, "less WAL for replay: fewer indexes on the written tables, batched writes (replay's cost is per record)", nil, nil}},
		not: []Advice{{KeyBandwidth, "more bandwidth: the standby has the WAL, it replays it slower than it arrives", nil, nil},
			{KeyPublisherTuning, "more CPU or tuning on the primary", nil, nil}}},
	ReplayStarved: {headline: "the startup process is runnable but waits for a CPU: the standby's host is saturated",
		helps: []Advice{{KeyStandbyCPU, "CPU for the standby, or moving the queries and other load off the startup process's core", nil, nil}},
		not:   []Advice{{KeyBandwidth, "more bandwidth", nil, nil}, {KeyFewerWALRecords, "making replay cheaper: it is not running, so a cheaper replay changes little", nil, nil}}},
	ReplayReadIO: {headline: "replay mostly waits on data file reads: the pages the WAL changes are not in the standby's memory",
		helps: []Advice{{KeyStandbyMemory, "more memory for the standby (shared_buffers, page cache), so that replay finds the pages it changes", nil, nil},
			{KeyReplayPrefetch, "recovery_prefetch = try or on (15+) with a higher maintenance_io_concurrency, so that replay reads ahead", nil, nil},
			{KeyStandbyDisk, "faster storage for the standby's data files", nil, nil}},
		not: []Advice{{KeyReplayFasterCore, "a faster CPU: replay waits on the disk", nil, nil}, {KeyBandwidth, "more bandwidth", nil, nil}}},
	ReplayConflict: {headline: "replay waits for a standby query that conflicts with it",
		helps: []Advice{{KeyShorterStandbyQueries, "shorter queries on the standby, or long reports on another standby", nil, nil},
			{KeyHotStandbyFeedback, "hot_standby_feedback = on to avoid snapshot conflicts (the primary's vacuum then keeps the rows the standby's queries see: bloat there)", nil, nil}},
		not: []Advice{{KeyAnySpeed, "CPU, memory or bandwidth: replay is made to wait", nil, nil}}},
	ReplayPaused: {headline: "replay is paused on the standby: WAL is received but not replayed",
		helps: []Advice{{KeyResumeReplay, "resume replay once whatever paused it is done", nil, nil}},
		not:   []Advice{{KeyAnySpeed, "anything about speed: a paused replay does not move", nil, nil}}},
	ReplayDelayed: {headline: "replay is held back on purpose by recovery_min_apply_delay",
		helps: []Advice{{KeyRemoveApplyDelay, "nothing, if the delay is wanted (a standby kept behind to undo mistakes); otherwise lower or remove recovery_min_apply_delay", nil, nil}},
		not:   []Advice{{KeyAnySpeed, "anything about speed: replay waits for the delay to pass", nil, nil}}},
	ReceiverIO: {headline: "the standby's WAL receiver is the limit: it waits on writing and flushing the WAL it receives",
		helps: []Advice{{KeyStandbyDisk, "faster storage for the standby's pg_wal (a cloud volume's throughput or IOPS limit counts)", nil, nil}},
		not:   []Advice{{KeyBandwidth, "more bandwidth: the link delivers faster than the standby writes", nil, nil}, {KeyPublisherTuning, "more CPU or tuning on the primary", nil, nil}}},
	SyncStandbyWait: {headline: "the primary's commits wait for this synchronous standby",
		helps: []Advice{{KeyAsyncStandby, "if the primary's commit latency matters more than this standby having each commit: an asynchronous standby (synchronous_standby_names), a weaker synchronous_commit (on instead of remote_apply, or remote_write), or a faster, closer standby", nil, nil}},
		not:   []Advice{{KeyPublisherTuning, "CPU or tuning on the primary: its commits wait for the standby", nil, nil}}},
	Inconclusive: {headline: "no single stage stands out",
		helps: []Advice{{KeySampleLonger, "sample longer (--duration 30s) while the lag grows", nil, nil}, {KeyRunOnHosts, "run lagscope on the servers' hosts so /proc figures are available", nil, nil}}},
}
