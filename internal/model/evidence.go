package model

import (
	"fmt"
	"strings"

	"github.com/lagscope/lagscope/internal/quote"

	"github.com/lagscope/lagscope/internal/units"
)

// evidence states v's evidence lines, once, from its diagnosis, the input
// and the stages as measured (st, before
// Judge redraws any), in this order: what v's rule decided on and what its
// diagnosis adds (verdictLines), then the path's (pathLines).
func evidence(v Verdict, in Input, st Stages) []Evidence {
	return append(verdictLines(v, in, st), pathLines(v, in)...)
}

// verdictLines are what v's rule decided on (decisionLines), then what its
// diagnosis adds: the sessions that block an apply worker waiting on its
// own resources, what fills the limiting stage's time (a synchronous
// standby, a CPU quota), a second resource it spends its time on, an apply
// worker that waits while nothing is applied, and a parallel apply worker
// as the limit. Empty lines are left out.
func verdictLines(v Verdict, in Input, st Stages) []Evidence {
	d := v.d
	out := decisionLines(v, in, st)
	applyWaits := d.resource == ResourceOwnWaits && (v.Limit == StageApply || v.Limit == StageParallel)
	if applyWaits {
		for _, b := range v.Blockers {
			out = append(out, item(EvBlocker, b.String(), Figures{"pid": float64(b.PID), "xact_age_s": b.XactAgeS}))
		}
	}
	switch d.fill {
	case FillSyncRep:
		out = append(out, item(EvSyncStandby, fmt.Sprintf("the apply worker waited for the subscriber's synchronous standby (%s) in %s of probes: the subscription commits with synchronous_commit = on/remote_apply and the subscriber has synchronous_standby_names", evSyncRep, pct(d.fillShare)), Figures{"probe_share": d.fillShare}))
	case FillQuota:
		out = append(out, quotaLine(d))
	}
	switch d.also {
	case alsoIO:
		out = append(out, item(EvAlsoIO, fmt.Sprintf("%s also waited on I/O for about %s of the window (I/O events in %s of probes: %s): part of its time goes to the disk", d.noun, pct(d.alsoShare), pct(d.ioProbes), d.ioTop), Figures{"window_share": d.alsoShare, "probe_share": d.ioProbes}))
	case alsoCPU:
		out = append(out, item(EvAlsoCPU, fmt.Sprintf("%s also ran on a CPU %s of the window (its reads' kernel time included): part of its time is CPU work, which faster disk alone leaves", d.noun, pct(d.alsoShare)), Figures{"window_share": d.alsoShare}))
	}
	if applyWaits && nothingMoves(in) {
		out = append(out, said(EvNothingApplied, "nothing was applied during the window: the path is blocked, not stopped"))
	}
	if d.parallel {
		out = append(out, item(EvParallelWorker, fmt.Sprintf("the parallel apply worker measured is pid %d, the busiest of %d", d.stage.PID, d.stage.Workers), Figures{"pid": float64(d.stage.PID), "workers": float64(d.stage.Workers)}))
		out = append(out, said(EvParallelLeader, "the leader apply worker hands large transactions to parallel apply workers (streaming = parallel) and waits for them: a single large transaction runs on one worker"))
	}
	return withoutEmpty(out)
}

// decisionLines state what v's rule decided on, by its basis.
func decisionLines(v Verdict, in Input, st Stages) []Evidence {
	switch v.d.basis {
	case basisLimit:
		return limitLines(v, in)
	case basisLink:
		return linkLines(v, in, st.Of(StageWalsender), st.Of(StageApply))
	case basisCopy:
		return copyLines(v.d, in)
	case basisTxn:
		return txnLines(v, in, st)
	}
	return pathFigureLines(v, in, st.Of(StageWalsender), st.Of(StageApply))
}

// rivalsLine names the subscriptions that claim one slot: which one the
// path is judged on, and why.
func rivalsLine(in Input) Evidence {
	var names []string
	for _, r := range in.Rivals {
		names = append(names, quote.Id(r))
	}
	why := "the first by name, none being enabled"
	switch {
	case in.SubEnabled && in.ApplyWorker:
		why = "the one enabled with an apply worker"
	case in.SubEnabled:
		why = "the one enabled"
	}
	return item(EvRivals, fmt.Sprintf("%d subscriptions claim this slot (slot_name): %s and %s; the path is judged on %s, %s; only one can use the slot at a time, so drop or re-point the other(s)",
		len(in.Rivals)+1, quote.Id(in.Subscription), strings.Join(names, ", "), quote.Id(in.Subscription), why), Figures{"subscriptions": float64(len(in.Rivals) + 1)})
}

// pathLines are the evidence lines about the whole path, after the
// verdict's own, in this order: subscriptions that claim the same slot,
// the next limit past the verdict's limit
// (or that none is near), the lag in time, what was generated, decoded and
// confirmed, the subscription's tables still in their initial copy (on its
// own slot's verdict) and what the walsender spilled (unless a large
// transaction's verdict states it).
func pathLines(v Verdict, in Input) []Evidence {
	s := in.Summary
	var out []Evidence
	if len(in.Rivals) > 0 && in.Subscription != "" {
		out = append(out, rivalsLine(in))
	}
	switch {
	case v.Limit == "":
	case v.Next != nil:
		out = append(out, item(EvNextLimit, v.Next.Text, Figures{"headroom": v.Next.Headroom}))
	case s.Progress() > 0:
		out = append(out, said(EvNoNextLimit, "no other measured stage is 10% busy: past this limit the path can run more than 10x faster before another stage saturates"))
	}
	if v.LagTime.Text != "" && lagTime(in).Text != "" {
		// Where the positions measure no lag (a transaction open on a
		// slot confirmed past it), the large transaction's own lines
		// state what it holds.
		lt, figs := v.LagTime, Figures{}
		for name, o := range map[string]Optional[float64]{"lag_s": lt.Seconds, "drain_s": lt.DrainS, "flush_lag_s": lt.FlushLagS} {
			if x, ok := o.Get(); ok {
				figs[name] = x
			}
		}
		out = append(out, item(EvLagTime, lt.Text, figs))
	}
	out = append(out, item(EvRates, fmt.Sprintf("generated %s, decoded %s, confirmed %s over %.0f s (%d ticks)", units.FormatRate(s.Generated), units.FormatRate(s.Decoded), units.FormatRate(s.Consumed), s.WindowS, s.Ticks),
		Figures{"generated_bytes_per_s": s.Generated, "decoded_bytes_per_s": s.Decoded, "confirmed_bytes_per_s": s.Consumed, "window_s": s.WindowS, "ticks": float64(s.Ticks)}))
	if in.NotReady > 0 && in.Sync == nil {
		out = append(out, item(EvTablesNotReady, fmt.Sprintf("%d table(s) of %s are still in their initial synchronisation (their tablesync slots are reported apart)", in.NotReady, in.Subscription), Figures{"tables": float64(in.NotReady)}))
	}
	if in.SpillBytes > 0 && v.Txn == nil {
		out = append(out, item(EvSpilled, fmt.Sprintf("the walsender spilled %s to disk during the window (logical_decoding_work_mem too small for the transactions)", size(in.SpillBytes)), Figures{"spilled_bytes": float64(in.SpillBytes)}))
	}
	return out
}
