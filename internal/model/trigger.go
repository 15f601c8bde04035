package model

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/audit"
	"github.com/lagscope/lagscope/internal/units"
)

// factorOf is a remedy's factor on a stage with what it rests on
// (Remedy.factor): f and model, applies, bound (a lower bound), and the
// per-row cost sources the figure puts the apply worker's residual time
// down to (Prediction.Residual; nil: none).
type factorOf struct {
	f        float64
	model    string
	applies  bool
	bound    bool
	residual []string
}

// withoutResidual is the figure of a remedy whose gain would be the apply
// worker's time beyond the calibrated cost of its WAL, at f, when the setup
// attributes that time to the sources removes says the remedy removes and
// to nothing else; otherwise no figure, with why (naming the other
// sources).
func withoutResidual(p Path, f float64, model string, removes func(audit.RowCost) bool) factorOf {
	names, why := p.Setup.attributed(removes)
	if names == nil {
		return factorOf{model: fmt.Sprintf("at the calibrated cost of the WAL it writes alone the apply worker would apply %.1fx as fast as today, but the rest of its time is not attributed to what this removes: %s", f, why), applies: true}
	}
	return factorOf{f: f, model: model + "; the setup shows " + joinNames(names) + " as the only per-row cost beyond the writes", applies: true, residual: names}
}

// joinNames joins names for prose.
func joinNames(names []string) string {
	out := ""
	for i, n := range names {
		switch {
		case i == 0:
		case i == len(names)-1:
			out += " and "
		default:
			out += ", "
		}
		out += n
	}
	return out
}

// triggerFactor is disable-trigger's factor on the apply worker: its
// capacity without the trigger is the WAL it writes per byte sent at
// Calibration.ApplyCostPerWAL, which puts all its time beyond that cost
// down to the trigger: only where the setup shows the trigger as the only
// per-row cost (withoutResidual). Otherwise, or without the subscriber's
// WAL, a sleeping trigger's sleep (Timeout waits) is what it saves at least
// (bound), since each sleep costs CPU of its own that counts as work here
// (the lab: the drain was 5.6-7.4x that bound).
func triggerFactor(p Path, st Stage) factorOf {
	if p.Limit != StageApply {
		return factorOf{}
	}
	// Own is capped by what /proc leaves outside CPU and run queue: a
	// sleep's probes beyond it are stale.
	sleep := min(p.Apply.TypeShares["Timeout"], max(st.Own, 0))
	var lower float64
	if sleep >= Sleeping && st.Known() && st.Utilisation-sleep >= minWork {
		lower = st.Utilisation / (st.Utilisation - sleep)
	}
	w, c := p.SubWALPerSent, p.calibration()
	notAttributed := ""
	if w > 0 && st.Known() && st.Utilisation > 0 {
		if f := 1 / (c.ApplyCostPerWAL * w) / capacity(p, st); f > max(lower, 1) {
			x := withoutResidual(p, f, fmt.Sprintf("without the trigger the apply worker's work follows the WAL it writes: %.1fx the WAL it was sent today, at about %.0f ms of its time per MB written (measured in lagscope's lab on %s: a faster core takes less; WAL the trigger writes itself makes the figure low)",
				w, msPerMB(c.ApplyCostPerWAL), c.Machine), kinds(audit.CostTrigger))
			if x.f > 0 {
				return x
			}
			notAttributed = x.model
		}
	}
	switch {
	case lower > 0:
		return factorOf{f: lower, model: fmt.Sprintf("the apply worker slept (Timeout waits) %s of the window, in the trigger; without it its work takes %s of today's time",
			units.Percent(sleep), units.Percent((st.Utilisation-sleep)/st.Utilisation)), bound: true, applies: true}
	case notAttributed != "":
		return factorOf{model: notAttributed, applies: true}
	case w > 0:
		return factorOf{model: fmt.Sprintf("the apply worker already applies faster than it would at about %.0f ms per MB of WAL written (lagscope's lab, %s): the trigger's share of its time cannot be told from it", msPerMB(c.ApplyCostPerWAL), c.Machine), applies: true}
	case sleep >= Sleeping && st.Known():
		return factorOf{model: fmt.Sprintf("the apply worker slept %s of the window; what it did besides is too little to measure, and the WAL the subscriber wrote was not read", units.Percent(sleep)), applies: true}
	}
	return factorOf{model: "the trigger's share of the apply worker's time is not measured: the WAL the subscriber wrote per byte sent was not read", applies: true}
}

// constraintFactor is drop-constraint's factor on the apply worker, for a
// CHECK constraint that calls a function not built in: as disable-trigger's
// from the WAL, only where the setup shows such constraints as the only
// per-row cost.
func constraintFactor(p Path, st Stage) factorOf {
	if p.Limit != StageApply || p.Setup == nil {
		return factorOf{}
	}
	found := false
	for _, s := range p.Setup.Costs.Sources {
		found = found || s.Kind == audit.CostCheck
	}
	if !found {
		return factorOf{}
	}
	w, c := p.SubWALPerSent, p.calibration()
	if w <= 0 || !st.Known() || st.Utilisation <= 0 {
		return factorOf{model: "the constraint's share of the apply worker's time shows against the WAL the subscriber writes: that was not read", applies: true}
	}
	f := 1 / (c.ApplyCostPerWAL * w) / capacity(p, st)
	if f <= 1 {
		return factorOf{model: fmt.Sprintf("the apply worker already applies as fast as it would at about %.0f ms per MB of WAL written (lagscope's lab, %s): the constraint's share of its time cannot be told from it", msPerMB(c.ApplyCostPerWAL), c.Machine), applies: true}
	}
	return withoutResidual(p, f, fmt.Sprintf("without the constraint the apply worker's work follows the WAL it writes: %.1fx the WAL it was sent today, at about %.0f ms of its time per MB written (measured in lagscope's lab on %s: a faster core takes less)",
		w, msPerMB(c.ApplyCostPerWAL), c.Machine), kinds(audit.CostCheck))
}

// indexFactor is drop-extra-indexes' factor on the apply worker. Its work
// follows the WAL it writes: w times the WAL it was sent today, about
// BaseWALPerSent without extra indexes. Where its CPU per byte of WAL
// written is above the calibrated cost (beyond BinaryResolution), the rest
// is counted as saved only when the setup puts it down to the extra
// indexes alone (an expression or GIN index: their CPU is not their WAL's);
// otherwise only the indexes' WAL's share is, and the figure is a lower
// bound.
func indexFactor(p Path, st Stage) factorOf {
	if p.Limit != StageApply {
		return factorOf{}
	}
	w, c := p.SubWALPerSent, p.calibration()
	base := c.BaseWALPerSent
	if w <= base {
		return factorOf{model: "the subscriber's WAL per byte sent was not measured above its base (so the indexes' share of the apply worker's work is not known)", applies: true}
	}
	plain := factorOf{f: w / base, model: fmt.Sprintf("the apply worker's work follows the WAL it writes: %.2fx the WAL it was sent today, about %.2fx without extra indexes (measured in the lab)", w, base), applies: true}
	if !st.Known() || st.Busy <= 0 || p.Drain <= 0 {
		return plain
	}
	per := st.Busy / (p.Drain * w)
	if per <= (1+c.BinaryResolution)*c.ApplyCostPerWAL {
		return plain
	}
	u := st.Utilisation
	head := fmt.Sprintf("the apply worker's CPU per MB of WAL it writes, %.0f ms, is above the calibrated %.0f ms (lagscope's lab, %s); ", msPerMB(per), msPerMB(c.ApplyCostPerWAL), c.Machine)
	names, why := p.Setup.attributed(kinds(audit.CostExprIndex, audit.CostIndexKind, audit.CostIndexCalls))
	if names != nil {
		if left := u - (st.Busy - c.ApplyCostPerWAL*base*p.Drain); left >= minWork {
			return factorOf{f: u / left, model: head + fmt.Sprintf("the setup puts the rest down to %s alone, so without the extra indexes its CPU is the WAL it writes, about %.2fx the WAL it was sent, at the calibrated cost", joinNames(names), base),
				applies: true, residual: names}
		}
	}
	saved := c.ApplyCostPerWAL * p.Drain * (w - base)
	if u-saved < minWork {
		return plain
	}
	return factorOf{f: u / (u - saved), model: head + fmt.Sprintf("only the indexes' WAL is counted as saved (%.2fx the WAL it was sent today, about %.2fx without extra indexes), since the rest is not attributed to them: %s", w, base, why),
		applies: true, bound: true}
}
