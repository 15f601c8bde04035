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
func pathFigureLines(v Verdict, in Input, ws, ap Stage) []string {
	s := in.Summary
	switch v.d.basis {
	case basisRates:
		return []string{ratesLine(s)}
	case basisStill:
		return []string{ratesLine(s), walsenderLine(ws), applyLine(ap)}
	case basisStages:
		return []string{walsenderLine(ws), applyLine(ap)}
	case basisProbes:
		return []string{fmt.Sprintf("only %d wait-event probes of the walsender and %d of the apply worker", s.Walsender.Probes, s.Apply.Probes)}
	case basisBothStarved:
		return []string{fmt.Sprintf("walsender waited on the run queue %s of the time, the apply worker %s: both are starved of CPU", pct(ws.Runq), pct(ap.Runq)),
			hostLine("publisher", s.PubHostBusy), hostLine("subscriber", s.SubHostBusy)}
	case basisCaughtUp:
		stages := fmt.Sprintf("no stage is saturated: the walsender is %s busy or waiting on its own resources", pct(ws.Utilisation))
		if ap.Known() {
			stages += fmt.Sprintf(", the apply worker %s", pct(ap.Utilisation))
		}
		return []string{fmt.Sprintf("median unconfirmed WAL %s over %s (under %d MiB)", size(in.MedianLag), secs(s.WindowS), CaughtUpLag>>20), stages}
	case basisFrozen:
		return []string{fmt.Sprintf("the apply worker received nothing for %s (last_msg_receipt_time stood still) while %s of WAL was generated", secs(in.SilentS), units.FormatRate(s.Generated)),
			fmt.Sprintf("walsender blocked on the socket (%s) %s of the time; apply worker waiting for data (%s) in %s of probes", evWriteData, pct(ws.Blocked), evApplyMain, pct(ap.Starved))}
	case basisConfirm:
		r := in.Reported
		out := []string{fmt.Sprintf("the walsender waited for new WAL (%s) in %s of probes: it has sent everything (%s not yet sent)", evWaitForWAL, pct(ws.Starved), size(s.Lag.NotYetSent)),
			fmt.Sprintf("the consumer reported writing all but %s of it (write_lsn), but confirms only up to %s behind (flush_lsn; the slot's confirmed_flush_lsn follows it)", size(r.WriteBehind), size(r.FlushBehind)),
			fmt.Sprintf("%s of WAL stays unconfirmed: the slot keeps it on the publisher, and after a reconnect the consumer receives it again", size(s.Lag.Total))}
		if in.HasSubscriber && ap.Known() {
			out = append(out, applyLine(ap))
		}
		return out
	}
	return nil
}

// ratesLine says what was consumed against what was generated.
func ratesLine(s measure.Summary) string {
	return fmt.Sprintf("consumed %s while %s of WAL was generated over %s", units.FormatRate(s.Consumed), units.FormatRate(s.Generated), secs(s.WindowS))
}
