package model

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/audit"
	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/units"
)

// Path is what the planner knows of one replication path.
type Path struct {
	// Verdict is the verdict's name, Limit its limiting stage ("" when
	// none: nothing to relieve).
	Verdict VerdictName
	Limit   StageName
	// Stages are the verdict's stages with their utilisation.
	Stages Stages
	// Drain is today's drain rate (the progress basis: sent_lsn or
	// confirmed_flush_lsn advance), Generated the WAL written, bytes/s;
	// Backlog the unconfirmed WAL at the window's end, bytes.
	Drain, Generated float64
	Backlog          int64
	// Walsender and Apply are the processes' measurements (wait shares).
	Walsender, Apply measure.Proc
	// Setup holds the facts of the pair's setup; nil when it was not read.
	Setup *RemedySetup
	// PubCPUs and SubCPUs are the CPUs of the servers' hosts (0 when /proc
	// was not read there).
	PubCPUs, SubCPUs int
	// ApplyCPUs are the CPUs the subscriber's apply worker may run on
	// (zero: not read).
	ApplyCPUs ApplyCPUs
	// SubWALPerSent is the WAL the subscriber wrote per byte sent in the
	// window (0 when unknown).
	SubWALPerSent float64
	// Link is the link's rate today and a faster one to predict for, as
	// the operator gave them (zero: not given; lagscope measures WAL, not
	// the bytes on the wire).
	Link LinkRates
	// Calibration is the lab profile the predictions rest on (the zero
	// value: DefaultCalibration).
	Calibration Calibration
	// PubLoad and SubLoad are the load that shared the walsender's and the
	// apply worker's CPUs (nil: not read): the unstarve remedies name it.
	PubLoad, SubLoad *measure.Competing
}

// calibration is the profile p names, or the default one.
func (p Path) calibration() Calibration { return p.Calibration.orDefault() }

// LinkRates are the link's rate today (Now) and the rate of a faster link
// to predict the drain for (To), in bytes on the wire a second.
type LinkRates struct {
	Now, To units.ByteRate
}

// RemedySetup are the setup's facts that bear on a remedy, for this path's
// subscription and tables (from the checks' findings).
type RemedySetup struct {
	// Found are the checks with a finding for this path's subscription or
	// tables, among those a remedy needs (Remedy.Finding): extra indexes
	// the apply worker maintains (extra-subscriber-indexes), a trigger that
	// fires in it (replica-triggers), a REPLICA IDENTITY FULL table without
	// a usable index (full-identity-no-index), binary = false
	// (binary-transfer), streaming = off (streaming-off).
	Found map[string]bool
	// RowsReadPerChange is the rows the subscriber's sequential scans read
	// per row changed on its tables in the window (0 when not read).
	RowsReadPerChange float64
	// Parallel: both servers have streaming = parallel
	// (pgversion.ParallelApply).
	Parallel bool
	// TableChanges are the rows each of the subscription's tables changed
	// in the window, for the tables that changed (nil when not read).
	TableChanges []int64
	// Costs are the per-row cost sources of the subscription's tables: what
	// the apply worker's time beyond the calibrated cost of its WAL may be
	// attributed to.
	Costs RowCosts
}

// has says the setup was read and check found something for the path.
func (s *RemedySetup) has(check audit.CheckID) bool { return s != nil && s.Found[string(check)] }

// Prediction is what one remedy is predicted to buy.
type Prediction struct {
	// Change names the remedy as 'lagscope lab whatif --change' does.
	Change string `json:"change"`
	// Remedy says what is changed, in the operator's words.
	Remedy string `json:"remedy"`
	// Factor multiplies the changed stage's capacity (0: not predicted).
	Factor float64 `json:"stage_factor,omitempty"`
	// Drain is the predicted drain rate, bytes/s, and Speedup its ratio to
	// today's (0 when not predicted).
	Drain   float64 `json:"drain_bytes_per_s,omitempty"`
	Speedup float64 `json:"speedup,omitempty"`
	// AtLeast says Drain is a lower bound (and CatchUpS an upper one).
	AtLeast bool `json:"at_least,omitempty"`
	// CatchUpS is the predicted time to drain the backlog, seconds: 0 when
	// not predicted or nothing to drain, -1 when the path still falls
	// behind.
	CatchUpS float64 `json:"catch_up_s,omitempty"`
	// LimitedBy is the stage that limits once the remedy is made (the
	// changed stage itself when nothing else caps it).
	LimitedBy StageName `json:"limited_by,omitempty"`
	// Model says what the figure rests on; NotPredicted why there is none.
	Model        string `json:"model"`
	NotPredicted string `json:"not_predicted,omitempty"`
	// Residual names what the figure puts the apply worker's time beyond
	// the calibrated cost of the WAL it writes down to (nil: the figure
	// does not rest on that residual): the setup's per-row cost sources the
	// remedy removes, when they are the only ones (RemedySetup.attributed),
	// or IdleWakes when an idle apply worker's calibrated capacity caps it.
	// A figure never rests on a residual nothing is named for.
	Residual []string `json:"residual_attributed_to,omitempty"`
}

// IdleWakes is Prediction.Residual's name for an idle apply worker's wakes:
// its time per byte of WAL beyond the calibrated cost, within
// Calibration.IdleWakeCost, put down to waking for little work.
const IdleWakes = "the idle apply worker's wakes"

// minUtil is the utilisation under which a stage idles nearly all the
// window: d / u is then only a rough bound on how fast it could go, and
// the prediction says so.
const minUtil = 0.05

// Plan predicts each remedy that applies to the path, in Remedies' order.
// It returns nil when no stage limits or nothing drains.
func Plan(p Path) []Prediction {
	if p.Limit == "" || p.Drain < StillRate {
		return nil
	}
	var out []Prediction
	for _, r := range Remedies {
		st, ok := stage(p, r.Stage)
		if !ok || r.Finding != "" && !p.Setup.has(r.Finding) {
			continue
		}
		x := r.factor(p, st)
		f, model := x.f, x.model
		if !x.applies {
			continue
		}
		pr := Prediction{Change: string(r.Change), Remedy: r.Remedy, Model: model}
		if r.label != nil {
			pr.Change, pr.Remedy = r.label(p)
		}
		if f <= 0 {
			pr.Model, pr.NotPredicted = "", model
			out = append(out, pr)
			continue
		}
		pr.Factor = f
		pr.Drain, pr.LimitedBy = capacity(p, st)*f, st.Name
		pr.Residual = x.residual
		var others map[StageName]float64
		if r.others != nil {
			others = r.others(p)
		}
		for _, o := range p.Stages {
			if o.Name == st.Name || !o.Known() || o.Utilisation <= 0 {
				continue
			}
			of, ok := others[o.Name]
			if !ok {
				of = 1
			}
			if c, _, _ := capOf(p, o); c*of < pr.Drain {
				pr.Drain, pr.LimitedBy = c*of, o.Name
			}
		}
		if pr.LimitedBy != st.Name {
			o, _ := stage(p, pr.LimitedBy)
			_, how, idle := capOf(p, o)
			if idle {
				pr.Residual = append(pr.Residual, IdleWakes)
			}
			pr.Model += fmt.Sprintf("; capped by the %s, %s busy today: %s", processNoun(o.Name), units.Percent(o.Utilisation), how)
			if of, ok := others[o.Name]; ok {
				pr.Model += fmt.Sprintf(", times %.2f", of)
			}
		}
		if l, ok := stage(p, StageLink); ok && st.Name != StageLink && !l.Known() {
			pr.Model += "; the link's capacity is not measured"
		}
		pr.AtLeast = x.bound && pr.LimitedBy == st.Name
		pr.Speedup = pr.Drain / p.Drain
		pr.CatchUpS = catchUp(p, pr.Drain)
		out = append(out, pr)
	}
	return out
}

// capacity is the rate at which st saturates: today's drain over its
// utilisation, or today's drain for a stage whose utilisation is not
// measured (the link, which limits when a remedy changes it).
func capacity(p Path, st Stage) float64 {
	if st.Known() && st.Utilisation > 0 {
		return p.Drain / st.Utilisation
	}
	return p.Drain
}

// capOf is the rate at which a stage other than the one changed saturates,
// and how that was found: today's drain over its work, or an idle apply
// worker's Calibration.IdleApplyCapacity (idle true), which puts its time
// beyond the calibrated cost of its WAL down to its wakes: only where the
// setup shows nothing else that costs it per row (a trigger, a constraint
// calling a function, an expression index), which the residual would be.
func capOf(p Path, o Stage) (float64, string, bool) {
	c := p.Drain / o.Work()
	how := "that"
	if w := o.Work(); units.Percent(w) != units.Percent(o.Utilisation) {
		how = units.Percent(w) + " (its run-queue waits at each wake left out: a busy process does not wake)"
	}
	how = "it saturates at today's drain / " + how
	if o.Utilisation < minUtil {
		how += " (a rough bound: so idle a stage says little about its capacity)"
	}
	if b := p.calibration().IdleApplyCapacity(o, p.Drain, p.SubWALPerSent); b > 0 && (p.Setup == nil || len(p.Setup.Costs.Sources) == 0) {
		return b, fmt.Sprintf("busy, it writes %.1fx the WAL it is sent at about %.0f ms a MB (measured in lagscope's lab on %s), so it saturates at %s (today's drain / its share of the window would say %s: an idle worker's wakes cost it more per byte)",
			p.SubWALPerSent, msPerMB(p.calibration().ApplyCostPerWAL), p.calibration().Machine, units.FormatRate(b), units.FormatRate(c)), true
	}
	return c, how, false
}

// catchUp is the backlog over the net drain: -1 when the path would still
// fall behind, 0 with nothing to drain.
func catchUp(p Path, drain float64) float64 {
	switch net := drain - p.Generated; {
	case p.Backlog <= 0:
		return 0
	case net <= StillRate:
		return -1
	default:
		return float64(p.Backlog) / net
	}
}

func stage(p Path, name StageName) (Stage, bool) {
	for _, s := range p.Stages {
		if s.Name == name {
			return s, true
		}
	}
	return Stage{}, false
}

// String is the report's line for the prediction.
func (pr Prediction) String() string {
	head := pr.Change + ": " + pr.Remedy
	if pr.NotPredicted != "" {
		return head + ": not predicted: " + pr.NotPredicted
	}
	about, within := "about", "about"
	if pr.AtLeast {
		about, within = "at least", "at most"
	}
	s := fmt.Sprintf("%s: drains %s %s", head, about, units.FormatRate(pr.Drain))
	if pr.Speedup > 0 {
		// A held standby's replay drains nothing today (a physical path's
		// prediction leaves its Speedup 0).
		s += fmt.Sprintf(" (%.1fx today)", pr.Speedup)
	}
	switch {
	case pr.CatchUpS > 0:
		s += fmt.Sprintf(", caught up in %s %s", within, units.FormatSeconds(pr.CatchUpS))
	case pr.CatchUpS < 0:
		s += ", still falling behind"
	}
	if pr.LimitedBy != "" {
		s += "; then the " + processNoun(pr.LimitedBy) + " limits"
	}
	return s + " (model: " + pr.Model + ")"
}

// processNoun names a stage's process for a sentence.
func processNoun(stage StageName) string {
	switch stage {
	case StageApply:
		return "apply worker"
	case StageParallel:
		return "parallel apply worker"
	case StageReplay:
		return "startup process (replay)"
	}
	return string(stage)
}
