package model

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/topology"
	"github.com/lagscope/lagscope/internal/units"
)

// Thresholds of the stage model. Shares are of one core (CPU, run queue)
// or of probes (wait events); see Stage.
const (
	// CaughtUpLag is the median unconfirmed WAL under which a path can count
	// as caught up (with CaughtUpTime and no saturated stage).
	CaughtUpLag = 16 << 20
	// CaughtUpTime is the lag in time under which a path can count as
	// caught up, seconds.
	CaughtUpTime = 10.0
	// Saturated is the utilisation (busy + own waits) at which a stage is
	// working all the time: seed 000's apply worker ran 97-98%; on this
	// project's shared 2-vCPU VM saturated stages measure 0.89-1.0 and
	// others at most 0.78 (docs/verdicts/README.md).
	Saturated = 0.85
	// MostlyBusy is the utilisation from which a stage that is not
	// saturated is still named the limit when the stages around it agree
	// (see mostlyBusyLimit).
	MostlyBusy = 0.6
	// Idle is the share of probes waiting for the upstream stage above which
	// a stage cannot be the limit: it had nothing to do that often.
	Idle = 0.15
	// LinkBlocked is the share of the walsender's probes blocked on the
	// socket from which, with nothing saturated and the apply worker
	// waiting for data, the link is named.
	LinkBlocked = 0.3
	// StarvedRunq is the run-queue share at which a process counts as
	// starved of CPU (seed-style run: the walsender's run delay grew 22 s in 25 s).
	StarvedRunq = 0.25
	// MostProbes is "mostly" for wait-event shares.
	MostProbes = 0.5
	// IdleLag is the unconfirmed WAL a path may hold and still count as
	// caught up when nothing drained in the window (no lag in time can be
	// measured): an idle server's last few records.
	IdleLag = 64 << 10
	// StillRate is the rate, in bytes/s, under which a position counts as
	// not moving: an idle server's own occasional records (a stopped
	// apply worker's slot confirmed them at 6 B/s on 16.14, and the lag in
	// time read "about 2482.7 h" of a backlog that did not drain).
	StillRate = 1e3
	// MinProbes is the number of probes of a process below which its wait
	// events are not trusted.
	MinProbes = 20
	// marginScale turns a distance from a threshold into a confidence: a
	// margin of this many share points or more counts as clear.
	marginScale = 0.15
)

// Event names (compared without regard to case; see measure.Proc.Share).
const (
	evApplyMain     = "LogicalApplyMain"
	evApplySendData = "LogicalApplySendData"
	evWriteData     = "WalSenderWriteData"
	evWalSenderMain = "WalSenderMain"
	evWaitForWAL    = "WalSenderWaitForWAL"
	evWALRead       = "WALRead"
	evReorderRead   = "ReorderBufferRead"
	evReorderWrite  = "ReorderBufferWrite"
	evSyncRep       = "SyncRep"
	// evStandbyConfirm is 17+'s wait of a failover slot's walsender for
	// the standbys in synchronized_standby_slots.
	evStandbyConfirm = "WaitForStandbyConfirmation"
	waitTypeIO       = "IO"
	waitTypeLock     = "Lock"
	waitTypeTimeout  = "Timeout"
	waitTypeLWLock   = "LWLock"
)

// Verdict is the classifier's answer for one path.
type Verdict struct {
	Name       VerdictName `json:"verdict"`
	Confidence float64     `json:"confidence"` // 0..1, from the measured margins
	Headline   string      `json:"headline"`
	Cause      string      `json:"cause,omitempty"` // for stalled and inconclusive
	// Evidence are the lines the verdict rests on, in order, each with
	// its kind (EvidenceKey) and the figures it states.
	Evidence []Evidence `json:"evidence"`
	Helps    []Advice   `json:"helps"`
	NotHelps []Advice   `json:"does_not_help"`
	// Caveats say what could not be seen and lowered the confidence.
	Caveats []string `json:"caveats,omitempty"`
	// Limit is the stage that limits the path ("" when none does: caught
	// up, stalled by configuration, inconclusive).
	Limit StageName `json:"limit,omitempty"`
	// Next is the stage that would limit once Limit is relieved.
	Next *NextLimit `json:"next_limit,omitempty"`
	// Stages are the path's stages in pipeline order with their figures.
	Stages []Stage `json:"stages,omitempty"`
	// LagTime is the lag in time (see LagTime).
	LagTime LagTime `json:"lag_time"`
	// Blockers are sessions that held a lock the apply side waited for.
	Blockers []Blocker `json:"blockers,omitempty"`
	// Txn is the large transaction in flight (large-transaction only).
	Txn *LargeTxn `json:"large_transaction,omitempty"`
	// Decided is the condition the confidence follows (see Decision).
	Decided *Decision `json:"-"`
	// d is what the rule decided beyond the name and the limit, from
	// which withTexts derives the headline, cause and advice.
	d diagnosis
}

// cappedByNext states a remedy of the limiting stage with what the next
// limit leaves of it: a faster link buys no more than the stage that
// saturates next allows (a report offered "a 2x link gave 1.86x" beside a
// next limit at 1.6x).
func cappedByNext(helps []Advice, limit StageName, next NextLimit) []Advice {
	if limit != StageLink || next.Headroom <= 0 {
		return helps
	}
	out := make([]Advice, len(helps))
	for i, h := range helps {
		out[i] = h
		if h.Key == KeyBandwidth {
			noun := map[StageName]string{StageApply: "apply worker", StageParallel: "parallel apply worker"}[next.Stage]
			if noun == "" {
				noun = string(next.Stage)
			}
			out[i].Figures = Figures{"headroom": next.Headroom}
			out[i].Text = fmt.Sprintf("more bandwidth, up to about %.1fx today's rate: then the %s saturates (model: the next limit's headroom, its capacity over today's rate, docs/whatif.md; where the link limited, a 2x link gave 1.86x: docs/reproduction.md)", next.Headroom, noun)
		}
	}
	return out
}

// NextLimit is the stage that limits after the current limit, and how much
// faster the path can run until it does.
type NextLimit struct {
	Stage StageName `json:"stage"`
	// Headroom is the factor on today's rate at which this stage saturates
	// (1 / its work, or for an apply worker under half busy the WAL it
	// writes at the lab's calibrated cost, over the drain: docs/whatif.md);
	// 0 when unknown.
	Headroom float64 `json:"headroom"`
	Text     string  `json:"text"`
}

// Classify names the stage that limits the path. Stops that no measurement
// changes (a missing slot, a disabled subscription, apply errors) come
// first; then the stage model: a stage that works all the time (busy or
// waiting on its own resources) while not waiting for its upstream is the
// limit; with none saturated, a walsender blocked on the socket and an apply
// worker waiting for data put the limit between them, on the link. Its
// texts are derived without the pair's setup (see Judge and Explain).
func Classify(in Input) Verdict { return Explain(Judge(in), nil) }

// Judge is Classify without the texts: the verdict's name, limit, stages,
// evidence and confidence, and the diagnosis Explain derives its headline,
// cause and advice from.
func Judge(in Input) Verdict {
	st := stages(in)
	v := decide(in, st)
	v.d.slot, v.d.sub = in.Slot, in.Subscription
	if in.Sync != nil {
		v.d.subOID = in.Sync.SubOID
	}
	v.Stages = slices.Clone(st)
	if v.Limit == StageWalsender && v.d.resource == ResourceRunQueue && !in.ProcOf(topology.Publisher) {
		v.Stages = Stages(v.Stages).with(starvedStageNoProc(st.Of(StageWalsender), in.Summary.PubCPU))
	}
	v.LagTime = verdictLagTime(in, v.Txn)
	if v.Limit != "" {
		for i := range v.Stages {
			if v.Stages[i].Name == v.Limit {
				v.Stages[i].Role = "limit"
			}
		}
		v.Next = nextLimit(v.Limit, v.Stages, in)
	}
	for i := range v.Stages {
		if s := &v.Stages[i]; s.Role != "limit" && s.Utilisation > 0 {
			s.Headroom, _ = headroomIn(*s, in)
		}
	}
	v = finish(v, in)
	v.Evidence = evidence(v, in, st)
	return v
}

// Explain derives the headline, cause and advice of a verdict from Judge,
// once, with what the pair's setup says about it (setup nil: not read; the
// advice is then the verdict's general advice).
func Explain(v Verdict, setup *Setup) Verdict { return withTexts(v, v.Next, setup) }

// newVerdict starts a verdict with its score; Judge states its evidence
// and withTexts derives its headline, cause and advice, from its
// diagnosis.
func newVerdict(name VerdictName, sc score) Verdict {
	return Verdict{Name: name, Confidence: sc.conf, Decided: sc.by}
}

// finish lowers the confidence for what could not be seen.
func finish(v Verdict, in Input) Verdict {
	s := in.Summary
	if !in.ProcOf(topology.Publisher) || (in.HasSubscriber && !in.ProcOf(topology.Subscriber)) {
		v.Caveats = append(v.Caveats, "process CPU and run-queue figures were not available for every side (remote host or --no-proc)")
		v.Confidence *= missingProcFactor
	}
	if in.Gaps > 0 {
		v.Caveats = append(v.Caveats, gapCaveat(in))
		// What was not seen cannot back the verdict: a window sampled for
		// 1 s of 6 weighs a sixth of one seen whole.
		v.Confidence *= math.Min(gapFactor, 1-in.Unseen)
		if SpecOf(v.Name).Stop {
			// A restart drops the walsender and the apply worker (an apply
			// error, a stopped position): an interrupted path looks stopped.
			v.Confidence = math.Min(v.Confidence, capStalledAfterGap)
			v.Caveats = append(v.Caveats, "a path interrupted by a restart looks stopped for a while: diagnose again once both servers have run through a whole window")
		}
	}
	if s.PositionWentBack {
		v.Caveats = append(v.Caveats, "the slot's confirmed position went back during the window (the publisher restarted and read it from disk): the confirmed rate counts from the lower position")
	}
	if n := s.Walsender.Probes + s.Apply.Probes; n < enoughProbes && !SpecOf(v.Name).Fact {
		v.Confidence *= fewProbesFloor + (1-fewProbesFloor)*float64(n)/enoughProbes
	}
	v.Confidence = math.Round(v.Confidence*100) / 100
	return v
}

// gapCaveat says how many gaps the sampling had and, when they left a
// tenth of the window or more unsampled, how much.
func gapCaveat(in Input) string {
	s := fmt.Sprintf("%d sampling gap(s): a server restarted or a connection dropped", in.Gaps)
	if in.Unseen >= 0.1 {
		s += fmt.Sprintf("; %s of the window was not sampled on one server, and the verdict rests on the rest", pct(in.Unseen))
	}
	return s
}

// topEvents names a process's n most frequent wait events with their
// shares.
func topEvents(p measure.Proc, n int) string {
	var parts []string
	for _, e := range measure.Ranked(p.WaitShares) {
		if len(parts) == n {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %s", e.Event, pct(e.Share)))
	}
	if len(parts) == 0 {
		return "none probed"
	}
	return strings.Join(parts, ", ")
}

func pct(v float64) string {
	if v < 0 {
		return "n/a"
	}
	return units.Percent(v)
}

// size prints a byte count the way every lagscope output does.
func size(n int64) string { return units.FormatBytes(float64(n)) }
