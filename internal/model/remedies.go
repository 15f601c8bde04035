package model

import (
	"fmt"
	"strings"

	"github.com/lagscope/lagscope/internal/audit"
	"github.com/lagscope/lagscope/internal/units"
)

// The what-if remedies, by the name a prediction and 'lagscope lab whatif
// --change' give them: each is a row of Remedies, and the lab change of the
// same name (internal/lab/whatif) names it by its constant. A remedy whose
// name carries a number is written with its placeholder (=N, =RATE).
const (
	// KeyLinkTwice: the link twice as fast (the what-if remedy link=2x).
	KeyLinkTwice RemedyID = "link=2x"
	// KeyLinkRate: a link of a given rate, link=8MB/s (the what-if remedy
	// link=RATE, with --link-rate and --what-if-link).
	KeyLinkRate RemedyID = "link=RATE"
	// KeyUnstarveWalsender: a CPU the walsender does not share (the what-if
	// remedy unstarve-walsender).
	KeyUnstarveWalsender RemedyID = "unstarve-walsender"
	// KeyUnstarveApply: a CPU the apply worker does not share (the what-if
	// remedy unstarve-apply).
	KeyUnstarveApply RemedyID = "unstarve-apply"
	// KeyDisableTrigger: the trigger that fires in the apply worker disabled
	// (the what-if remedy disable-trigger).
	KeyDisableTrigger RemedyID = "disable-trigger"
	// KeyDropExtraIndexes: the subscriber's extra indexes dropped (the
	// what-if remedy drop-extra-indexes).
	KeyDropExtraIndexes RemedyID = "drop-extra-indexes"
	// KeyDropConstraint: the CHECK constraint that calls a function dropped
	// on the subscriber (the what-if remedy drop-constraint, and the lab
	// change of the same name).
	KeyDropConstraint RemedyID = "drop-constraint"
	// KeyIndexForFull: an index the apply worker can use for a REPLICA
	// IDENTITY FULL table (the what-if remedy index-for-full).
	KeyIndexForFull RemedyID = "index-for-full"
	// KeyBinaryOn: binary = true on the subscription, as a what-if remedy
	// (binary=on; the advice line is binary).
	KeyBinaryOn RemedyID = "binary=on"
	// KeyStreamingParallelOn: streaming = parallel for a large transaction,
	// as a what-if remedy (streaming=parallel; the advice line is
	// streaming-parallel).
	KeyStreamingParallelOn RemedyID = "streaming=parallel"
	// KeySplit: the tables split over N subscriptions (the what-if remedy
	// split=N, predicted as split=2, split=3, ...).
	KeySplit RemedyID = "split=N"
)

// Remedy is one change an operator can make, the stage it changes, and
// how much faster that stage gets.
type Remedy struct {
	// Change is the remedy's name in 'lagscope lab whatif --change', its
	// constant declared above.
	Change RemedyID
	// Remedy says what is changed, in the operator's words.
	Remedy string
	// Stage is the stage whose capacity the remedy changes.
	Stage StageName
	// Finding is the check whose finding for the path's subscription or
	// tables the remedy needs ("" none): without it, it does not apply.
	Finding audit.CheckID
	// factor returns the factor on the stage's capacity and what it rests
	// on (factorOf): its model; applies false when the remedy does not
	// apply to this path, a factor of 0 (with why) when it applies but
	// cannot be predicted from what was measured; bound when the factor is
	// a lower bound for this path (the prediction is "at least" its figure
	// while the changed stage still limits); the per-row cost sources the
	// figure puts the apply worker's time beyond the calibrated cost of its
	// WAL down to (Prediction.Residual; nil: the figure does not rest on
	// it).
	factor func(p Path, st Stage) factorOf
	// others returns the factors the remedy puts on other stages'
	// capacity, by stage name (nil: unchanged).
	others func(p Path) map[StageName]float64
	// label returns the change's name and remedy for this path when they
	// carry a number (nil: Change and Remedy).
	label func(p Path) (change, remedy string)
}

// figure is a factor that is never a bound nor rests on a residual, as
// factorOf.
func figure(f float64, model string, applies bool) factorOf {
	return factorOf{f: f, model: model, applies: applies}
}

// Starved is the run-queue share from which relieving a starved process is
// a remedy (an apply-bound worker on the lab's shared 2 vCPUs waits 8-15%
// of the window on the run queue: that is not what limits it).
const Starved = 0.25

// Sleeping is the share of the apply worker's probes in Timeout waits
// (pg_sleep and the like) from which a trigger's sleep is the remedy's
// measure.
const Sleeping = 0.20

// minWork is the least share of the window a process must have worked for
// its work to set its capacity once its waits go: /proc counts CPU in
// 10 ms ticks, so 1% of a 10 s window is 10 of them (the lab's sleeping
// trigger leaves the apply worker 4-7% of work).
const minWork = 0.01

// Remedies lists the remedies the planner knows, in the order a report
// shows them.
var Remedies = []Remedy{
	{Change: KeyLinkTwice, Remedy: "a link twice as fast", Stage: StageLink,
		factor: func(p Path, _ Stage) factorOf {
			if p.Limit != StageLink {
				return factorOf{}
			}
			return figure(2, fmt.Sprintf("the link carried the drain, %s; twice as fast, it carries twice that", units.FormatRate(p.Drain)), true)
		}},
	{Change: KeyLinkRate, Remedy: "a faster link", Stage: StageLink,
		factor: func(p Path, _ Stage) factorOf {
			if p.Limit != StageLink || p.Link.Now <= 0 || p.Link.To <= p.Link.Now {
				return factorOf{}
			}
			f := float64(p.Link.To) / float64(p.Link.Now)
			return figure(f, fmt.Sprintf("the link carried the drain, %s of WAL, at %s; at %s it carries %.2fx that", units.FormatRate(p.Drain),
				units.FormatRate(float64(p.Link.Now)), units.FormatRate(float64(p.Link.To)), f), true)
		},
		label: func(p Path) (string, string) {
			return LinkChange(p.Link.To), fmt.Sprintf("a link of %s (today %s)", units.FormatRate(float64(p.Link.To)), units.FormatRate(float64(p.Link.Now)))
		}},
	{Change: KeyUnstarveWalsender, Remedy: "a CPU the walsender does not share (fewer busy processes on the publisher's cores, or more cores)", Stage: StageWalsender,
		factor: func(p Path, st Stage) factorOf {
			return figure(unstarve(p, st, "walsender"))
		},
		label: func(p Path) (string, string) {
			return string(KeyUnstarveWalsender), unstarveRemedy("a CPU the walsender does not share (fewer busy processes on the publisher's cores, or more cores)", "walsender", p.PubLoad)
		}},
	{Change: KeyUnstarveApply, Remedy: "a CPU the apply worker does not share (fewer busy processes on the subscriber's cores, more cores, or a higher CPU limit)", Stage: StageApply,
		factor: func(p Path, st Stage) factorOf {
			return figure(unstarve(p, st, "apply worker"))
		},
		label: func(p Path) (string, string) {
			return string(KeyUnstarveApply), unstarveRemedy("a CPU the apply worker does not share (fewer busy processes on the subscriber's cores, more cores, or a higher CPU limit)", "apply worker", p.SubLoad)
		}},
	// Without the trigger the apply worker's work is what it writes
	// (Calibration.ApplyCostPerWAL); without that figure, a sleeping trigger's sleep
	// gives a lower bound (triggerFactor).
	{Change: KeyDisableTrigger, Remedy: "the trigger that fires in the apply worker disabled (or made cheaper)", Stage: StageApply, Finding: audit.CheckReplicaTriggers,
		factor: triggerFactor},
	{Change: KeyDropExtraIndexes, Remedy: "the subscriber's extra indexes dropped", Stage: StageApply, Finding: audit.CheckExtraSubscriberIndexes,
		factor: indexFactor},
	{Change: KeyDropConstraint, Remedy: "the CHECK constraint that calls a function dropped on the subscriber (or made cheaper)", Stage: StageApply, Finding: audit.CheckApplyRowCosts,
		factor: constraintFactor},
	{Change: KeyIndexForFull, Remedy: "an index the apply worker can use for the REPLICA IDENTITY FULL table", Stage: StageApply, Finding: audit.CheckFullIdentityNoIndex,
		factor: func(p Path, _ Stage) factorOf {
			if p.Limit != StageApply {
				return factorOf{}
			}
			n := p.Setup.RowsReadPerChange
			if n < 2 {
				return figure(0, "the rows each change scans were not read (pg_stat_user_tables on the subscriber)", true)
			}
			return figure(n, fmt.Sprintf("each change scanned %.0f rows; with an index it reads about one", n), true)
		}},
	{Change: KeyBinaryOn, Remedy: "binary = true on the subscription (values travel in binary: no type output and input functions)", Stage: StageApply, Finding: audit.CheckBinaryTransfer,
		factor: func(p Path, st Stage) factorOf { return figure(binaryFactor(p, st)) }},
	// A large transaction sent whole at its commit: streaming = parallel
	// overlaps its decoding, sending and applying. Offered, not predicted:
	// a window sees one of them at a time.
	{Change: KeyStreamingParallelOn, Remedy: "streaming = parallel on the subscription (a large transaction is sent while it is decoded and applied by a parallel worker as it arrives)", Stage: StageApply, Finding: audit.CheckStreamingOff,
		factor: func(p Path, _ Stage) factorOf {
			if p.Verdict != LargeTransaction || !p.Setup.Parallel {
				return factorOf{}
			}
			return figure(0, "its gain is the overlap of decoding and applying the transaction, and the spill to disk it avoids; without streaming this window sees one of them at a time (the walsender decodes it before anything is sent, the apply worker applies it after), so neither's share of the catch-up is known", true)
		}},
	splitRemedy,
}

// Names says whether change (a prediction's Change) is this remedy's: its
// Change, or for a remedy that carries a number ("split=N", "link=RATE")
// the same with the number ("split=2", "link=8MB/s").
func (r Remedy) Names(change string) bool {
	name := string(r.Change)
	if base, ok := strings.CutSuffix(name, "=N"); ok {
		return change == name || strings.HasPrefix(change, base+"=")
	}
	if base, ok := strings.CutSuffix(name, "=RATE"); ok {
		return change == name || strings.HasPrefix(change, base+"=") && change != string(KeyLinkTwice)
	}
	return change == name
}

// unstarve is the factor of a process that waited for a CPU: its work
// without the run-queue wait.
func unstarve(p Path, st Stage, noun string) (float64, string, bool) {
	if p.Limit != st.Name || !st.Known() || st.Runq < Starved {
		return 0, "", false
	}
	work := st.Utilisation - st.Runq
	if work < minWork {
		return 0, "", false
	}
	return st.Utilisation / work, fmt.Sprintf("the %s waited for a CPU %s of the window; with a CPU free for it, its work (CPU and its own waits, %s) is all it takes", noun, units.Percent(st.Runq), units.Percent(work)), true
}

// LinkChange is the change's name for a link of rate r: "link=8MB/s".
func LinkChange(r units.ByteRate) string { return "link=" + r.String() }
