package model

import (
	"slices"

	"github.com/lagscope/lagscope/internal/measure"
)

// What fills a limiting stage's time, when the verdict's name alone does not
// say it: the column of the verdict texts (variants) besides the name.
const (
	// FillSyncRep: an apply-side stage waits for the subscriber's
	// synchronous standby (SyncRep).
	FillSyncRep = "syncrep"
	// FillLock: an apply-side stage waits on heavyweight locks that other
	// sessions hold.
	FillLock = "lock"
	// FillIO: an apply-side stage waits on the subscriber's disk.
	FillIO = "io"
	// FillSleep: an apply-side stage sleeps (Timeout waits such as PgSleep).
	FillSleep = "sleep"
	// FillOtherWait: an apply-side stage waits on something that is neither
	// the disk, an LWLock, a lock nor a standby.
	FillOtherWait = "other-wait"
	// FillCPUPart: a busy apply-side stage with /proc that runs on a CPU
	// less than FullCore of the window.
	FillCPUPart = "cpu-part"
	// FillQuota: a starved process whose cgroup runs out of CPU quota.
	FillQuota = "quota"
	// FillAffinity: a starved process whose host is not saturated while the
	// CPUs it may run on are.
	FillAffinity = "affinity"
	// FillHeldBack: a starved process judged without /proc whose server's
	// sessions wake late (a CPU limit on its cgroup, likely).
	FillHeldBack = "held-back"
	// FillFrozen: a replication connection that carries nothing.
	FillFrozen = "frozen-link"
	// FillLeftover: a tablesync slot whose subscription is observed with
	// no copy under way for it.
	FillLeftover = "leftover"
	// FillUnowned: a tablesync slot whose subscription was not observed.
	FillUnowned = "unowned"
	// FillDisabled: a path stopped by its disabled subscription.
	FillDisabled = "disabled"
	// FillDisabledByError: a path stopped by its subscription, disabled
	// with apply errors counted (disable_on_error, or by hand after them):
	// enabling it alone fails again at the same transaction.
	FillDisabledByError = "disabled-by-error"
	// FillBothStarved: the walsender and the apply worker both starved.
	FillBothStarved = "both-starved"
)

// The second resource a CPU-bound (or I/O-bound) apply-side stage spends
// IOPart or more of its time on (see withIOPart, withCPUPart).
const (
	alsoIO  = "io"
	alsoCPU = "cpu"
)

// basis is what a verdict's first evidence lines state: the measurements
// its rule decided on (see decisionLines). Every rule records one; the zero
// value states nothing (a test checks that no recorded verdict has it).
type basis int

const (
	basisNone basis = iota
	// basisLimit: a limiting stage's own figures (diagnosis.stage) and
	// those of the stage it was weighed against (diagnosis.other).
	basisLimit
	// basisLink: the walsender blocked on the socket, the apply worker
	// waiting for data, and without /proc the publisher's burst.
	basisLink
	// basisStages: the walsender's and the apply worker's figures (no
	// stage stands out, or the backlog drained).
	basisStages
	// basisRates: what was consumed against what was generated (a path
	// configured not to run).
	basisRates
	// basisStill: the rates, then the walsender's and the apply worker's
	// figures (nothing moves).
	basisStill
	// basisProbes: how few wait-event probes there were.
	basisProbes
	// basisBothStarved: both processes' run queues and the hosts' CPUs.
	basisBothStarved
	// basisCaughtUp: the median unconfirmed WAL and the stages' use.
	basisCaughtUp
	// basisFrozen: how long the apply worker received nothing, and the
	// two processes' waits.
	basisFrozen
	// basisConfirm: what the consumer reported writing and confirming.
	basisConfirm
	// basisCopy: a tablesync slot's copy (diagnosis.copy).
	basisCopy
	// basisTxn: a large transaction in flight (Verdict.Txn), then what the
	// stage model's verdict (diagnosis.inner) decided on.
	basisTxn
)

// diagnosis is what a rule decided about a path beyond the verdict's name
// and limit: what fills the limiting stage's time and the figures the
// verdict's headline, cause and advice are derived from (see withTexts).
// Its zero value is a verdict's general case.
type diagnosis struct {
	// resource is what fills the limiting stage's time, coarsely
	// (Resource*; "" for a verdict that names no stage): with the stage,
	// it names a stage verdict (stageNames).
	resource string
	// fill is what fills the limiting stage's time (Fill*; "" the
	// verdict's general case); fillShare is its share of the stage's
	// probes (FillSyncRep).
	fill      string
	fillShare float64
	// throttle is the starved process's cgroup throttling (FillQuota).
	throttle measure.Throttle
	// also is a second resource the stage spends IOPart or more on (alsoIO,
	// alsoCPU; "" none), alsoShare the share of the window it spends on it.
	also      string
	alsoShare float64
	// ioProbes is the stage's share of probes in I/O wait events and ioTop
	// its top two wait events with their shares (alsoIO).
	ioProbes float64
	ioTop    string
	// parallel says the limit is the busiest parallel apply worker.
	parallel bool
	// basis is what the verdict's first evidence lines state.
	basis basis
	// stage is the measured stage the verdict is about (its figures);
	// other is the stage a limit was weighed against (basisLimit: the
	// walsender for an apply-side limit, the apply side for the walsender).
	stage, other Stage
	// copy is what the tablesync rule saw of a table's copy (basisCopy).
	copy copyState
	// linkHeld says a backlog under CaughtUpLag drained at the link's pace
	// (basisLink): why the path is not caught up.
	linkHeld bool
	// noun names the process in the text ("apply worker", "walsender");
	// side is its server ("publisher", "subscriber").
	noun, side string
	// hostBusy is the side's host CPU busy share (-1 unknown).
	hostBusy float64
	// lateMS is the side's median wake-up lateness, ms (FillHeldBack).
	lateMS float64
	// cause is the rule's cause ("" none); a variant's cause replaces it.
	cause string
	// slot and sub name the path's slot and its subscription ("" none
	// observed), for the statements of its advice; subOID is a tablesync
	// slot's subscription oid (0 for any other slot).
	slot, sub string
	subOID    int64
	// errs are the subscription's error counters (FillDisabledByError).
	errs errCounts
	// inner is the stage model's verdict, texts derived, that a large
	// transaction's verdict wraps (nil otherwise).
	inner *Verdict
}

// withTexts derives v's headline, cause and advice from its name and
// diagnosis, once: the first variant that matches gives each text it has,
// the verdict's general advice the rest; a second resource adds its remedy,
// a parallel apply worker its own, a next limit caps a link's remedy (next
// nil: none), and the pair's setup adds its causes and fixes and rules
// remedies and "does not help" lines out (setup nil: not read).
func withTexts(v Verdict, next *NextLimit, setup *Setup) Verdict {
	a := adviceFor[v.Name]
	head, helps, not, cause := a.headline, a.helps, a.not, v.d.cause
	for _, t := range variants {
		if !t.matches(v) {
			continue
		}
		if t.headline != nil {
			head = t.headline(v)
		}
		if t.helps != nil {
			helps = t.helps(v)
		}
		if t.not != nil {
			not = t.not(v)
		}
		if t.cause != nil {
			cause = t.cause(v)
		}
		break
	}
	if h, ok := alsoHelps[v.d.also]; ok {
		helps = append(slices.Clip(helps), h)
	}
	if v.d.parallel {
		head = parallelHeadline(v)
		helps = parallelHelps(helps)
	}
	if next != nil {
		helps = cappedByNext(helps, v.Limit, *next)
	}
	if setup != nil {
		if v.d.fill == FillDisabledByError {
			// Its own remedies find the error, skip or fix it, then
			// enable: the setup's enable and error fixes would repeat
			// them, the enable first.
			setup = setup.without(RemedyID(checkSubscriptionStopped), RemedyID(checkApplyErrors))
		}
		cause, helps, not = setup.cause(cause), setup.helps(helps), setup.not(not)
		helps = withStatements(helps, setup.Subscription)
		for _, e := range setup.Evidence {
			v.Evidence = append(withoutKey(v.Evidence, e.Key), e)
		}
	}
	v.Headline, v.Cause, v.Helps, v.NotHelps = head, cause, helps, not
	return v
}
