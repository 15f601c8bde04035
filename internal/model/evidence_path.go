package model

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/units"
)

// pathFigureLines state what a rule that names no limiting stage decided
// on, from the whole path's figures and its walsender's (ws) and apply
// worker's (ap): a stop (its rates; with nothing moving, the stages as
// well), too few probes, both processes starved, a caught-up path, a
// frozen connection, a consumer that confirms late, or no stage standing
// out.
func pathFigureLines(v Verdict, in Input, ws, ap Stage) []Evidence {
	s := in.Summary
	switch v.d.basis {
	case basisRates:
		return []Evidence{ratesLine(s)}
	case basisStill:
		return []Evidence{ratesLine(s), walsenderLine(ws), applyLine(ap)}
	case basisStages:
		return []Evidence{walsenderLine(ws), applyLine(ap)}
	case basisProbes:
		return []Evidence{item(EvFewProbes, fmt.Sprintf("only %d wait-event probes of the walsender and %d of the apply worker", s.Walsender.Probes, s.Apply.Probes),
			Figures{"walsender_probes": float64(s.Walsender.Probes), "apply_probes": float64(s.Apply.Probes)})}
	case basisBothStarved:
		return []Evidence{item(EvBothStarved, fmt.Sprintf("walsender waited on the run queue %s of the time, the apply worker %s: both are starved of CPU", pct(ws.Runq), pct(ap.Runq)),
			Figures{"walsender_runqueue_share": ws.Runq, "apply_runqueue_share": ap.Runq}),
			hostLine("publisher", s.PubHostBusy), hostLine("subscriber", s.SubHostBusy),
			competingLine("publisher", "walsender", s.PubLoad), competingLine("subscriber", "apply worker", s.SubLoad)}
	case basisCaughtUp:
		stages := fmt.Sprintf("no stage is saturated: the walsender is %s busy or waiting on its own resources", pct(ws.Utilisation))
		figs := Figures{"walsender_utilisation": ws.Utilisation}
		if ap.Known() {
			stages += fmt.Sprintf(", the apply worker %s", pct(ap.Utilisation))
			figs["apply_utilisation"] = ap.Utilisation
		}
		return []Evidence{item(EvCaughtUpLag, fmt.Sprintf("median unconfirmed WAL %s over %s (under %d MiB)", size(in.MedianLag), secs(s.WindowS), CaughtUpLag>>20),
			Figures{"median_bytes": float64(in.MedianLag), "window_s": s.WindowS}),
			item(EvNoStageSaturated, stages, figs)}
	case basisFrozen:
		return []Evidence{item(EvSilentLink, fmt.Sprintf("the apply worker received nothing for %s (last_msg_receipt_time stood still) while %s of WAL was generated", secs(in.SilentS), units.FormatRate(s.Generated)),
			Figures{"silent_s": in.SilentS, "generated_bytes_per_s": s.Generated}),
			item(EvFrozenWaits, fmt.Sprintf("walsender blocked on the socket (%s) %s of the time; apply worker waiting for data (%s) in %s of probes", evWriteData, pct(ws.Blocked), evApplyMain, pct(ap.Starved)),
				Figures{"blocked_share": ws.Blocked, "starved_share": ap.Starved})}
	case basisConfirm:
		r := in.Reported
		out := []Evidence{item(EvAllSent, fmt.Sprintf("the walsender waited for new WAL (%s) in %s of probes: it has sent everything (%s not yet sent)", evWaitForWAL, pct(ws.Starved), size(s.Lag.NotYetSent)),
			Figures{"probe_share": ws.Starved, "not_yet_sent_bytes": float64(s.Lag.NotYetSent)}),
			item(EvConsumerReported, fmt.Sprintf("the consumer reported writing all but %s of it (write_lsn), but confirms only up to %s behind (flush_lsn; the slot's confirmed_flush_lsn follows it)", size(r.WriteBehind), size(r.FlushBehind)),
				Figures{"write_behind_bytes": float64(r.WriteBehind), "flush_behind_bytes": float64(r.FlushBehind)}),
			item(EvUnconfirmed, fmt.Sprintf("%s of WAL stays unconfirmed: the slot keeps it on the publisher, and after a reconnect the consumer receives it again", size(s.Lag.Total)),
				Figures{"unconfirmed_bytes": float64(s.Lag.Total)})}
		if in.HasSubscriber && ap.Known() {
			out = append(out, applyLine(ap))
		}
		return out
	}
	return nil
}

// ratesLine says what was consumed against what was generated.
func ratesLine(s measure.Summary) Evidence {
	return item(EvConsumedVsGenerated, fmt.Sprintf("consumed %s while %s of WAL was generated over %s", units.FormatRate(s.Consumed), units.FormatRate(s.Generated), secs(s.WindowS)),
		Figures{"consumed_bytes_per_s": s.Consumed, "generated_bytes_per_s": s.Generated, "window_s": s.WindowS})
}
