package model

// What fills a limiting stage's time, coarsely: with the stage, it names
// the verdict (stageNames); the diagnosis's fill refines it for the text.
const (
	// ResourceCPU: the stage runs on a CPU (decodes, applies).
	ResourceCPU = "cpu"
	// ResourceRunQueue: the stage's process is runnable and waits for a
	// CPU (starved: other work, a CPU limit).
	ResourceRunQueue = "run-queue"
	// ResourceOwnWaits: the stage waits on its own resources (locks, I/O,
	// LWLocks, a synchronous standby); for the walsender, waits that are
	// neither I/O nor the standbys.
	ResourceOwnWaits = "own-waits"
	// ResourceIO: the walsender waits on WAL or spill-file reads.
	ResourceIO = "io"
	// ResourceStandby: a failover slot's walsender waits for the physical
	// standbys in synchronized_standby_slots (17+).
	ResourceStandby = "standby"
	// ResourceSocket: the link carries the data slower than the walsender
	// sends it and the apply worker waits for it.
	ResourceSocket = "socket"
	// ResourceSocketOrConsumer: the walsender is blocked on the socket and
	// the consumer is not observed: the link, or a consumer that reads
	// slower.
	ResourceSocketOrConsumer = "socket-or-consumer"
)

// stageName is one row of stageNames.
type stageName struct {
	stage    StageName
	resource string
	name     VerdictName
}

// stageNames names the verdict of a limiting stage by what fills its time:
// the one place a stage verdict's name comes from (see newStageVerdict).
var stageNames = []stageName{
	{StageWalsender, ResourceCPU, WalsenderDecodeCPU},
	{StageWalsender, ResourceRunQueue, WalsenderStarved},
	{StageWalsender, ResourceIO, WalsenderReadIO},
	{StageWalsender, ResourceStandby, WalsenderWaitsStandby},
	// Locks or LWLocks on the publisher: the limit is named, its cause is
	// not (capOwnWaits).
	{StageWalsender, ResourceOwnWaits, Inconclusive},
	{StageLink, ResourceSocket, Network},
	{StageLink, ResourceSocketOrConsumer, NetworkOrConsumer},
	{StageApply, ResourceCPU, SubscriberApplyCPU},
	{StageApply, ResourceRunQueue, SubscriberStarved},
	{StageApply, ResourceOwnWaits, SubscriberWaits},
	{StageParallel, ResourceCPU, SubscriberApplyCPU},
	{StageParallel, ResourceRunQueue, SubscriberStarved},
	{StageParallel, ResourceOwnWaits, SubscriberWaits},
	// A physical standby's stages (physical_rules.go).
	{StageReceiver, ResourceIO, ReceiverIO},
	// A WAL receiver on a CPU or starved of one: the limit is named, its
	// cause is not.
	{StageReceiver, ResourceCPU, Inconclusive},
	{StageReceiver, ResourceRunQueue, Inconclusive},
	{StageReplay, ResourceCPU, ReplayCPU},
	{StageReplay, ResourceRunQueue, ReplayStarved},
	{StageReplay, ResourceIO, ReplayReadIO},
	// Waits that are neither reads nor conflicts (LWLocks): the limit is
	// named, its cause is not.
	{StageReplay, ResourceOwnWaits, Inconclusive},
}

// stageVerdictName is the verdict name of stage limited by resource.
func stageVerdictName(stage StageName, resource string) VerdictName {
	for _, r := range stageNames {
		if r.stage == stage && r.resource == resource {
			return r.name
		}
	}
	panic("model: no verdict for stage " + string(stage) + " limited by " + resource + ": add it to stageNames")
}

// namesOf lists the verdict names of the stageNames rows for stages, in
// the table's order, each once.
func namesOf(stages ...StageName) []VerdictName {
	var out []VerdictName
	for _, r := range stageNames {
		seen := false
		for _, n := range out {
			seen = seen || n == r.name
		}
		for _, s := range stages {
			if r.stage == s && !seen {
				out = append(out, r.name)
				seen = true
			}
		}
	}
	return out
}

// newStageVerdict starts the verdict of a limiting stage from what fills
// its time: its name from stageNames, its limit the stage.
func newStageVerdict(stage StageName, resource string, sc score) Verdict {
	v := newVerdict(stageVerdictName(stage, resource), sc)
	v.Limit, v.d.resource = stage, resource
	return v
}
