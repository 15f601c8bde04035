package model

import (
	"math"
	"slices"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/topology"
)

// Thresholds of the physical decision that the logical one does not have.
// Every other threshold is the logical path's (Saturated, MostlyBusy,
// Idle, MostProbes, StarvedRunq, IdleLag, CaughtUpLag, CaughtUpTime,
// StillRate), for the same reasons: a stage is a process, and its shares
// are measured the same way.
const (
	// SyncWaitShare is the share of the primary's probes with a backend
	// waiting on SyncRep from which a synchronous standby is named as
	// holding the primary's commits: one probe in seven sees a commit
	// waiting for it, a part of the primary's time an operator notices as
	// slower commits (a primary with no synchronous standby shows none).
	SyncWaitShare = 0.15
)

// PhysicalInput is what the physical decision looks at for one standby:
// measure.Physical's figures and which nodes /proc covers. The decision
// reads no tick itself.
type PhysicalInput struct {
	Path measure.Physical
	// Proc says for which roles' nodes /proc figures exist (ProcOf).
	Proc map[topology.Role]bool
	// Major is the standby's PostgreSQL major version (0 unknown); the
	// primary's when the standby is not observed.
	Major int
	// Gaps counts sampling gaps; Unseen is the largest share of the window
	// one node's gaps left unsampled.
	Gaps   int
	Unseen float64
}

// ProcOf says whether /proc figures exist for the node of role r.
func (in PhysicalInput) ProcOf(r topology.Role) bool { return in.Proc[r] }

// PhysicalInputs builds one input per physical path of the recording: with
// a standby node, its path (fed by the primary's walsender on its slot,
// or the only physical one); with the primary alone, one per physical
// walsender the primary lists (measure.StandbyKeys: by
// application_name, told apart by slot or pid where standbys share one).
func PhysicalInputs(rec *sample.Recording) []PhysicalInput {
	base := PhysicalInput{Proc: procByRole(rec), Gaps: len(rec.Gaps), Unseen: unseen(rec)}
	if s := rec.Server(sample.StandbyNode); s != nil {
		base.Major = s.Major
	} else if s := rec.Server(sample.PrimaryNode); s != nil {
		base.Major = s.Major
	}
	if rec.Server(sample.StandbyNode) != nil {
		in := base
		in.Path = measure.PhysicalOf(rec, measure.StandbyKey{})
		return []PhysicalInput{in}
	}
	var out []PhysicalInput
	for _, k := range measure.StandbyKeys(rec) {
		in := base
		in.Path = measure.PhysicalOf(rec, k)
		out = append(out, in)
	}
	return out
}

// Wait events of a physical path's processes (compared without regard to
// case: 17 renamed several by case only).
var (
	// The WAL receiver waits for data from the primary in its main loop,
	// and for the startup process to ask it to start streaming.
	receiverStarved = []string{"WalReceiverMain", "WalReceiverWaitStart"}
	// The startup process waits for WAL to replay: streamed, or retried
	// from the archive.
	replayStarved = []string{"RecoveryWalStream", "RecoveryWalAll", "RecoveryRetrieveRetryInterval"}
)

// physicalStages are a physical path's stages in pipeline order: the
// primary's walsender, the link, the standby's WAL receiver and its startup
// process (unknown where their node is not observed).
func physicalStages(in PhysicalInput) Stages {
	p := in.Path
	ws := unknownStage(StageWalsender)
	if p.HasPrimary {
		ws = procStage(StageWalsender, p.Walsender, in.ProcOf(topology.Primary), walsenderBlocked, walsenderStarved)
	}
	rc, rp := unknownStage(StageReceiver), unknownStage(StageReplay)
	if p.HasStandby {
		rc = procStage(StageReceiver, p.Receiver, in.ProcOf(topology.Standby), nil, receiverStarved)
		rp = procStage(StageReplay, p.Startup, in.ProcOf(topology.Standby), nil, replayStarved)
	}
	return Stages{ws, unknownStage(StageLink), rc, rp}
}

// JudgePhysical names what limits a physical standby: the first rule of
// physicalRules that holds decides, as for a logical path; the verdict's
// texts, lag in time and evidence are derived from its diagnosis.
func JudgePhysical(in PhysicalInput) Verdict {
	st := physicalStages(in)
	var v Verdict
	for _, r := range physicalRules {
		if got, ok := r.match(in, st); ok {
			v = got
			break
		}
	}
	v.Stages = slices.Clone(st)
	for i := range v.Stages {
		if v.Stages[i].Name == v.Limit {
			v.Stages[i].Role = "limit"
		} else if s := &v.Stages[i]; s.Utilisation > 0 && v.Limit != "" {
			s.Headroom = 1 / s.Work()
		}
	}
	v.LagTime = PhysicalLagTime(in.Path)
	v.Evidence = slices.Concat(v.Evidence, physicalEvidence(in, v))
	v = physicalTexts(v, in)
	return finishPhysical(v, in)
}

// finishPhysical lowers the confidence for what could not be seen, as
// finish does for a logical path.
func finishPhysical(v Verdict, in PhysicalInput) Verdict {
	p := in.Path
	if (p.HasPrimary && !in.ProcOf(topology.Primary)) || (p.HasStandby && !in.ProcOf(topology.Standby)) {
		v.Caveats = append(v.Caveats, "process CPU and run-queue figures were not available for every observed server (remote host or --no-proc)")
		if !SpecOf(v.Name).Fact {
			v.Confidence *= missingProcFactor
		}
	}
	if !p.HasPrimary {
		v.Caveats = append(v.Caveats, "no --primary: the walsender and the WAL not yet sent were not observed; what the standby knows of the primary's position (latest_end_lsn) stands in for it")
	}
	if !p.HasStandby {
		v.Caveats = append(v.Caveats, "no --standby: the WAL receiver and the startup process were not observed; the positions the standby reports to the walsender stand in for theirs")
		v.Confidence = math.Min(v.Confidence, capConsumerUnseen)
	}
	if in.Gaps > 0 {
		v.Caveats = append(v.Caveats, gapCaveat(Input{Gaps: in.Gaps, Unseen: in.Unseen}))
		v.Confidence *= math.Min(gapFactor, 1-in.Unseen)
	}
	if n := p.Walsender.Probes + p.Startup.Probes; n < enoughProbes && !SpecOf(v.Name).Fact {
		v.Confidence *= fewProbesFloor + (1-fewProbesFloor)*float64(n)/enoughProbes
	}
	v.Confidence = math.Round(v.Confidence*100) / 100
	return v
}
