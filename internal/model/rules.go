package model

import (
	"fmt"
	"math"

	"github.com/lagscope/lagscope/internal/topology"
)

// rule is one row of the classifier's ordered table: the first rule whose
// match holds decides the path's verdict.
type rule struct {
	// ID names the rule in the docs (README's rule list, docs/verdicts).
	ID string
	// Verdicts are every verdict name the rule can give.
	Verdicts []VerdictName
	// When says, in one line, when the rule holds.
	When string
	// match decides the verdict when the rule holds. rest are the rules
	// after this one in the table, for a rule that wraps what they decide
	// (a large transaction keeps the stage model's limit and evidence).
	match func(in Input, st Stages, rest []rule) (Verdict, bool)
}

// rules is the classifier's precedence: stops that no measurement changes
// first, then the stage model (see decide). Names the rules in the docs.
var rules = []rule{
	{ID: "tablesync", Verdicts: []VerdictName{InitialSync, Stalled},
		When:  "the slot is a tablesync slot: its table's initial copy is under way (initial-sync), failed or left behind (stalled)",
		match: matchSync},
	{ID: "config-stall", Verdicts: []VerdictName{Stalled},
		When:  "the path is configured not to run: no slot, a lost or invalidated slot, no subscription, a disabled subscription, apply errors, no apply worker, no walsender",
		match: matchConfigStall},
	{ID: "large-transaction", Verdicts: []VerdictName{LargeTransaction},
		When:  "a large transaction is in flight without streaming (open, being decoded, or sent whole and applied); the rules below still name its limit",
		match: matchLargeTxn},
	{ID: "frozen-link", Verdicts: []VerdictName{Stalled},
		When: "the walsender is blocked on the socket while the apply worker waits for data and has received nothing for the whole window",
		match: func(in Input, st Stages, _ []rule) (Verdict, bool) {
			return frozenLink(in, st.Of(StageWalsender), st.Of(StageApply))
		}},
	{ID: "few-probes", Verdicts: []VerdictName{Inconclusive},
		When:  "too few wait-event probes to trust any share (under MinProbes), unless nothing moves",
		match: matchFewProbes},
	{ID: "both-starved", Verdicts: []VerdictName{Inconclusive},
		When:  "the walsender and the apply worker both wait for a CPU (with /proc on both sides): mixed",
		match: matchBothStarved},
	{ID: "saturated", Verdicts: stageVerdicts,
		When:  "a stage works all the time (utilisation at least Saturated) without waiting for its upstream: the busier of the walsender and the apply side (the leader or its busiest parallel worker) is the limit",
		match: matchSaturated},
	{ID: "caught-up", Verdicts: []VerdictName{CaughtUp},
		When:  "little unconfirmed WAL that drains within CaughtUpTime (or next to none), not held back by the link",
		match: matchCaughtUp},
	{ID: "drained", Verdicts: []VerdictName{Inconclusive},
		When:  "the backlog drained while it was measured and the walsender ran out of WAL to send",
		match: matchDrained},
	{ID: "link", Verdicts: append(namesOf(StageLink), WalsenderStarved, Inconclusive),
		When: "the walsender is blocked on the socket while the apply worker (when observed) waits for data: the link; a starved walsender instead when /proc shows it longer on the run queue than on the socket, or without /proc when the publisher's CPUs are saturated",
		match: func(in Input, st Stages, _ []rule) (Verdict, bool) {
			return linkLimit(in, st.Of(StageWalsender), st.Of(StageApply))
		}},
	{ID: "confirmation-lag", Verdicts: []VerdictName{ConfirmationLag},
		When: "everything is sent and written by the consumer, which confirms its flush position late",
		match: func(in Input, st Stages, _ []rule) (Verdict, bool) {
			return confirmationLag(in, st.Of(StageWalsender), st.Of(StageApply))
		}},
	{ID: "mostly-busy", Verdicts: stageVerdicts,
		When: "a stage works most of the window (at least MostlyBusy) while the stages around it agree: the walsender with the apply worker waiting for data, or the apply worker with the walsender blocked on it",
		match: func(in Input, st Stages, _ []rule) (Verdict, bool) {
			return mostlyBusyLimit(in, st.Of(StageWalsender), st.Of(StageApply))
		}},
	{ID: "nothing-moves", Verdicts: []VerdictName{Stalled},
		When:  "neither sending nor confirming advanced while WAL was generated, and no stage was busy",
		match: matchNothingMoves},
	{ID: "no-stage", Verdicts: []VerdictName{Inconclusive},
		When: "otherwise: no stage stands out",
		match: func(in Input, st Stages, _ []rule) (Verdict, bool) {
			return noStage(in, st.Of(StageWalsender), st.Of(StageApply)), true
		}},
}

// stageVerdicts are the verdicts that name a saturated (or mostly busy)
// stage: the walsender's and the apply side's, by what fills its time.
var stageVerdicts = namesOf(StageWalsender, StageApply, StageParallel)

// decide applies the rules in order to the stages st = [walsender, link,
// apply] and, when parallel apply workers ran, [parallel apply]: the first
// that holds names the verdict.
func decide(in Input, st Stages) Verdict {
	return firstMatch(rules, in, st)
}

// firstMatch is the verdict of the first of rs that holds; the last rule
// always holds.
func firstMatch(rs []rule, in Input, st Stages) Verdict {
	for i, r := range rs {
		if v, ok := r.match(in, st, rs[i+1:]); ok {
			return v
		}
	}
	panic("model: no rule holds: the table's last rule must always hold")
}

// matchSync describes a tablesync slot (syncVerdict).
func matchSync(in Input, _ Stages, _ []rule) (Verdict, bool) {
	if in.Sync == nil {
		return Verdict{}, false
	}
	return syncVerdict(in), true
}

// matchConfigStall names a path that cannot move whatever the processes do.
func matchConfigStall(in Input, _ Stages, _ []rule) (Verdict, bool) {
	cause, fill := configStall(in)
	if cause == "" {
		return Verdict{}, false
	}
	v := newVerdict(Stalled, fixed(confFact))
	v.d.basis, v.d.cause, v.d.fill = basisRates, cause, fill
	if fill == FillDisabledByError {
		v.d.errs = errCounts{in.ApplyErrorCount, in.Conflicts}
	}
	return v, true
}

// matchLargeTxn names a large transaction in flight, with the limit and
// the evidence the rules after it give.
func matchLargeTxn(in Input, st Stages, rest []rule) (Verdict, bool) {
	if in.Txn == nil {
		return Verdict{}, false
	}
	return largeTxnVerdict(in, firstMatch(rest, in, st)), true
}

// matchFewProbes names a window with too few wait-event probes.
func matchFewProbes(in Input, _ Stages, _ []rule) (Verdict, bool) {
	s := in.Summary
	if s.Walsender.Probes+s.Apply.Probes >= MinProbes || nothingMoves(in) {
		return Verdict{}, false
	}
	v := newVerdict(Inconclusive, fixed(confFewProbes))
	v.d.basis, v.d.cause = basisProbes, "too few probes: sample longer"
	return v, true
}

// matchBothStarved names both processes starved of CPU: the host (or
// hosts) are saturated by something else; naming one stage would hide the
// other.
func matchBothStarved(in Input, st Stages, _ []rule) (Verdict, bool) {
	ws, ap := st.Of(StageWalsender), st.Of(StageApply)
	if !in.ProcOf(topology.Publisher) || !in.ProcOf(topology.Subscriber) || !starved(ws) || !starved(ap) {
		return Verdict{}, false
	}
	v := newVerdict(Inconclusive, confidence(margin{"walsender run queue over StarvedRunq", ws.Runq - StarvedRunq}, margin{"apply worker run queue over StarvedRunq", ap.Runq - StarvedRunq}).capped(capBothStarved))
	v.d.basis = basisBothStarved
	v.d.cause = "mixed: walsender-starved and subscriber-starved at once; find what else uses the CPUs (top, pidstat) and diagnose again"
	v.d.fill = FillBothStarved
	return v, true
}

// matchSaturated names a stage that works all the time (saturatedLimit).
func matchSaturated(in Input, st Stages, _ []rule) (Verdict, bool) {
	var par *Stage
	if p, ok := st.Find(StageParallel); ok {
		par = &p
	}
	return saturatedLimit(in, st.Of(StageWalsender), st.Of(StageApply), par)
}

// matchCaughtUp names a path with little unconfirmed WAL that drains within
// CaughtUpTime, or next to none when nothing drains (an idle server's last
// records).
func matchCaughtUp(in Input, st Stages, _ []rule) (Verdict, bool) {
	s, ws, ap := in.Summary, st.Of(StageWalsender), st.Of(StageApply)
	lt := lagTime(in)
	if drainedThroughLink(in, ws) || in.MedianLag > CaughtUpLag || s.Lag.Total > 2*CaughtUpLag ||
		!((lt.DrainS.Known() && lt.Seconds.Or(0) <= CaughtUpTime) || s.Lag.Total <= IdleLag) {
		return Verdict{}, false
	}
	most := math.Max(ws.Utilisation, ap.Utilisation)
	v := newVerdict(CaughtUp, confidence(margin{"median lag under CaughtUpLag", float64(CaughtUpLag-in.MedianLag) / CaughtUpLag}, margin{"busiest stage under Saturated", Saturated - most}))
	v.d.basis = basisCaughtUp
	return v, true
}

// matchDrained names a backlog that (nearly) drained during the window
// while the walsender ran out of WAL to send for a while. A walsender still
// blocked on the link to the end is draining its last megabytes, not caught
// up (a 100 MB backlog at 15 MB after 9 s at 8 MB/s).
func matchDrained(in Input, st Stages, _ []rule) (Verdict, bool) {
	s, ws := in.Summary, st.Of(StageWalsender)
	if s.Lag.Start <= 2*CaughtUpLag || s.Lag.Total > CaughtUpLag || ws.Starved < Idle {
		return Verdict{}, false
	}
	v := newVerdict(Inconclusive, fixed(confDrained))
	v.d.basis = basisStages
	v.d.cause = fmt.Sprintf("the backlog drained during the window (%s at its start, %s at its end): the path caught up while it was measured; diagnose again while it lags", size(s.Lag.Start), size(s.Lag.Total))
	return v, true
}

// matchNothingMoves names a backlog that neither sending nor confirming
// advanced while no stage was busy.
func matchNothingMoves(in Input, st Stages, _ []rule) (Verdict, bool) {
	if !nothingMoves(in) {
		return Verdict{}, false
	}
	ws, ap := st.Of(StageWalsender), st.Of(StageApply)
	v := newVerdict(Stalled, confidence(margin{"walsender under Saturated", Saturated - ws.Utilisation}, margin{"apply worker under Saturated", Saturated - ap.Utilisation}))
	v.d.basis = basisStill
	v.d.cause = "neither the walsender (sent_lsn) nor the slot (confirmed_flush_lsn) advanced during the window, and no stage was busy or waiting on a resource"
	return v, true
}

// noStage is the last rule's verdict: no stage stands out.
func noStage(in Input, ws, ap Stage) Verdict {
	s := in.Summary
	v := newVerdict(Inconclusive, fixed(confNoStage))
	v.d.basis = basisStages
	switch {
	case ws.Starved >= MostProbes:
		v.d.cause = fmt.Sprintf("the walsender waited for new WAL (%s) in %s of probes while %s stayed unconfirmed: the consumer confirms late (a lazy confirmer, or a large transaction being applied)", evWaitForWAL, pct(ws.Starved), size(s.Lag.Total))
	case in.HasSubscriber:
		v.d.cause = "no stage stands out: nothing is saturated, and the walsender is not blocked on the link"
	default:
		v.d.cause = "no publisher-side stage stands out and the consumer is not observed (add --subscriber)"
	}
	return v
}
