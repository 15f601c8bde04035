package classify

import (
	"fmt"
	"math"
	"time"

	"github.com/lagscope/lagscope/internal/measure"
)

// decide applies the stage model to the stages st = [walsender, link, apply].
func decide(in Input, st []Stage) Verdict {
	s := in.Summary
	ws, ap := st[0], st[2]
	win := time.Duration(s.WindowS * float64(time.Second)).Round(time.Second)
	if in.Sync != nil {
		return syncVerdict(in)
	}
	if cause := configStall(in); cause != "" {
		v := newVerdict(Stalled, 0.95,
			fmt.Sprintf("consumed %.1f MB/s while %.1f MB/s of WAL was generated over %s", mb(s.Consumed), mb(s.Generated), win))
		v.Cause = cause
		return v
	}
	if s.Walsender.Probes+s.Apply.Probes < MinProbes && !nothingMoves(in) {
		v := newVerdict(Inconclusive, 0.3, fmt.Sprintf("only %d wait-event probes of the walsender and %d of the apply worker", s.Walsender.Probes, s.Apply.Probes))
		v.Cause = "too few probes: sample longer"
		return v
	}
	// Both processes starved of CPU: the host (or hosts) are saturated by
	// something else; naming one stage would hide the other.
	if in.ProcPub && in.ProcSub && starved(ws) && starved(ap) {
		v := newVerdict(Inconclusive, math.Min(0.6, confidence(ws.Runq-StarvedRunq, ap.Runq-StarvedRunq)),
			fmt.Sprintf("walsender waited on the run queue %s of the time, the apply worker %s: both are starved of CPU", pct(ws.Runq), pct(ap.Runq)),
			hostLine("publisher", s.PubHostBusy), hostLine("subscriber", s.SubHostBusy))
		v.Cause = "mixed: walsender-starved and subscriber-starved at once; find what else uses the CPUs (top, pidstat) and diagnose again"
		return v
	}
	var par *Stage
	if len(st) > 3 {
		par = &st[3]
	}
	if v, ok := saturatedLimit(in, ws, ap, par); ok {
		return v
	}
	if lt := lagTime(in); in.MedianLag <= CaughtUpLag && s.Lag.Total <= 2*CaughtUpLag && lt.Seconds <= CaughtUpTime &&
		(lt.Seconds >= 0 || s.Lag.Total <= IdleLag) {
		most := math.Max(ws.Utilisation, ap.Utilisation)
		stagesLine := fmt.Sprintf("no stage is saturated: the walsender is %s busy or waiting on its own resources", pct(ws.Utilisation))
		if ap.Known() {
			stagesLine += fmt.Sprintf(", the apply worker %s", pct(ap.Utilisation))
		}
		return newVerdict(CaughtUp, confidence(float64(CaughtUpLag-in.MedianLag)/CaughtUpLag, Saturated-most),
			fmt.Sprintf("median unconfirmed WAL %s over %s (under %s)", size(in.MedianLag), win, size(CaughtUpLag)), stagesLine)
	}
	if s.Lag.Start > 2*CaughtUpLag && s.Lag.Total <= CaughtUpLag {
		v := newVerdict(Inconclusive, 0.5, walsenderLine(ws), applyLine(ap))
		v.Cause = fmt.Sprintf("the backlog drained during the window (%s at its start, %s at its end): the path caught up while it was measured; diagnose again while it lags", size(s.Lag.Start), size(s.Lag.Total))
		return v
	}
	if v, ok := linkLimit(in, ws, ap); ok {
		return v
	}
	if v, ok := mostlyBusyLimit(in, ws, ap); ok {
		return v
	}
	if nothingMoves(in) {
		v := newVerdict(Stalled, confidence(Saturated-ws.Utilisation, Saturated-ap.Utilisation),
			fmt.Sprintf("consumed %.1f MB/s while %.1f MB/s of WAL was generated over %s", mb(s.Consumed), mb(s.Generated), win),
			walsenderLine(ws), applyLine(ap))
		v.Cause = "neither the walsender (sent_lsn) nor the slot (confirmed_flush_lsn) advanced during the window, and no stage was busy or waiting on a resource"
		return v
	}
	v := newVerdict(Inconclusive, 0.4, walsenderLine(ws), applyLine(ap))
	switch {
	case ws.Starved >= MostProbes:
		v.Cause = fmt.Sprintf("the walsender waited for new WAL (%s) in %s of probes while %s stayed unconfirmed: the consumer confirms late (a lazy confirmer, or a large transaction being applied)", evWaitForWAL, pct(ws.Starved), size(s.Lag.Total))
	case in.HasSubscriber:
		v.Cause = "no stage stands out: nothing is saturated, and the walsender is not blocked on the link"
	default:
		v.Cause = "no publisher-side stage stands out and the consumer is not observed (add --subscriber)"
	}
	return v
}

// saturatedLimit names a stage that works all the time (utilisation at
// least Saturated, waiting for its upstream less than Idle).
func saturatedLimit(in Input, ws, ap Stage, par *Stage) (Verdict, bool) {
	wsSat := ws.Known() && ws.Utilisation >= Saturated && ws.Starved < Idle && (ws.Probes >= MinProbes || in.ProcPub)
	apSat := ap.Known() && ap.Utilisation >= Saturated && ap.Starved < Idle && ap.Probes >= MinProbes
	if par != nil && par.Known() && par.Utilisation >= Saturated && par.Starved < Idle && par.Probes >= MinProbes &&
		(!apSat || par.Utilisation > ap.Utilisation) {
		// The busiest parallel apply worker is saturated: the leader
		// hands it a large transaction and waits for it.
		ap, apSat = *par, true
	}
	if !wsSat && !apSat {
		return Verdict{}, false
	}
	lim, other := ap, ws
	if !apSat || (wsSat && ws.Utilisation > ap.Utilisation) {
		lim, other = ws, ap
	}
	// When the stage on the other side agrees (the apply worker waits for
	// data behind a saturated walsender; the walsender is blocked on a
	// saturated apply worker), the limit would be named from MostlyBusy on
	// (mostlyBusyLimit): the margin counts from there.
	floor := Saturated
	if (lim.Name == StageWalsender && (!in.HasSubscriber || other.Starved >= Idle)) ||
		(lim.Name != StageWalsender && other.Blocked >= LinkBlocked) {
		floor = MostlyBusy
	}
	margins := []float64{lim.Utilisation - floor, Idle - lim.Starved}
	if other.Known() {
		margins = append(margins, lim.Utilisation-other.Utilisation)
	}
	conf := confidence(margins...)
	var v Verdict
	if lim.Name != StageWalsender {
		v = applyVerdict(in, lim, ws, conf)
	} else {
		v = walsenderVerdict(in, lim, ap, conf)
	}
	v.Limit = lim.Name
	return v, true
}

func applyVerdict(in Input, ap, ws Stage, conf float64) Verdict {
	s := in.Summary
	p, noun := s.Apply, "apply worker"
	if ap.Name == StageParallel && len(s.Parallel) > 0 {
		p, noun = s.Parallel[0], fmt.Sprintf("parallel apply worker (pid %d, the busiest of %d)", ap.PID, ap.Workers)
	}
	v := applyStageVerdict(in, ap, p, noun, ws, conf)
	if ap.Name == StageParallel {
		v.Evidence = append(v.Evidence, "the leader apply worker hands large transactions to parallel apply workers (streaming = parallel) and waits for them: a single large transaction runs on one worker")
		v.Helps = append(v.Helps, "smaller transactions on the publisher: each large transaction is applied by one parallel worker")
	}
	return v
}

// applyStageVerdict names what saturates an apply-side stage (the leader or
// a parallel worker, p being its measurement, noun its name in the text).
func applyStageVerdict(in Input, ap Stage, p measure.Proc, noun string, ws Stage, conf float64) Verdict {
	s := in.Summary
	switch {
	case ap.Own >= MostProbes*ap.Utilisation:
		v := newVerdict(SubscriberWaits, conf,
			fmt.Sprintf("%s waited on its own resources in %s of probes (%s)", noun, pct(ap.Own), ap.OwnTop))
		v.Blockers = in.Blockers
		for _, b := range in.Blockers {
			v.Evidence = append(v.Evidence, b.String())
		}
		if len(in.Blockers) > 0 {
			v.Helps = append([]string{fmt.Sprintf("end or shorten the blocking session (pid %d): SELECT pg_terminate_backend(%d) on the subscriber, or fix the job that holds the lock", in.Blockers[0].PID, in.Blockers[0].PID)}, v.Helps...)
		}
		if sr := p.Share(evSyncRep); sr >= MostProbes*ap.Own {
			v.Evidence = append(v.Evidence, fmt.Sprintf("the apply worker waited for the subscriber's synchronous standby (%s) in %s of probes: the subscription commits with synchronous_commit = on/remote_apply and the subscriber has synchronous_standby_names", evSyncRep, pct(sr)))
			v.Helps = append([]string{"synchronous_commit = off on the subscription (ALTER SUBSCRIPTION ... SET (synchronous_commit = off), the default; safe: the slot re-sends what was not flushed)", "a faster or closer synchronous standby for the subscriber"}, v.Helps...)
		}
		if nothingMoves(in) {
			v.Evidence = append(v.Evidence, "nothing was applied during the window: the path is blocked, not stopped")
		}
		return v
	case in.ProcSub && starved(ap):
		return newVerdict(SubscriberStarved, conf,
			fmt.Sprintf("%s waited on the run queue %s of the time (runnable, not running) and ran %s", noun, pct(ap.Runq), pct(ap.CPU)),
			hostLine("subscriber", s.SubHostBusy))
	case in.ProcSub:
		runq := fmt.Sprintf("%s run queue %s: it gets most of the CPU it asks for", noun, pct(ap.Runq))
		if ap.Runq >= StarvedRunq {
			runq = fmt.Sprintf("%s run queue %s: the subscriber's CPU is shared as well, but it runs more than twice as long as it waits", noun, pct(ap.Runq))
		}
		return newVerdict(SubscriberApplyCPU, conf,
			fmt.Sprintf("%s CPU %s of one core, no wait event in %s of probes", noun, pct(ap.CPU), pct(p.Share(measure.CPUEvent))),
			runq,
			fmt.Sprintf("%s waited for work (%s) in only %s of probes", noun, starvedEvent(ap), pct(ap.Starved)),
			walsenderLine(ws))
	default:
		v := newVerdict(SubscriberApplyCPU, conf*0.75,
			fmt.Sprintf("%s had no wait event (on CPU or runnable) in %s of probes", noun, pct(ap.Busy)),
			fmt.Sprintf("%s waited for work (%s) in only %s of probes", noun, starvedEvent(ap), pct(ap.Starved)))
		v.Caveats = append(v.Caveats, "no /proc figures for the subscriber: a CPU-starved apply worker would look the same")
		return v
	}
}

func walsenderVerdict(in Input, ws, ap Stage, conf float64) Verdict {
	s := in.Summary
	feeding := fmt.Sprintf("apply worker waiting for data (%s) in %s of probes", evApplyMain, pct(ap.Starved))
	if !in.HasSubscriber {
		feeding = "no subscriber observed: judged from the publisher side only"
	}
	switch {
	case in.ProcPub && starved(ws):
		return newVerdict(WalsenderStarved, conf,
			fmt.Sprintf("walsender waited on the run queue %s of the time and ran only %s of one core", pct(ws.Runq), pct(ws.CPU)),
			fmt.Sprintf("its wait events (%s) are stale while it waits for a CPU: run-queue delay shows starvation", topEvents(s.Walsender, 2)),
			hostLine("publisher", s.PubHostBusy), feeding)
	case ws.Own >= MostProbes*ws.Utilisation && s.Walsender.TypeShare(waitTypeIO) >= ws.Own/2:
		v := newVerdict(WalsenderReadIO, conf,
			fmt.Sprintf("walsender waited on I/O in %s of probes (%s)", pct(s.Walsender.TypeShare(waitTypeIO)), ws.OwnTop), feeding)
		if s.Walsender.Share(evReorderRead, evReorderWrite) > s.Walsender.Share(evWALRead) {
			v.Caveats = append(v.Caveats, "most I/O is spill files (ReorderBuffer): raise logical_decoding_work_mem or use streaming")
		}
		return v
	case ws.Own >= MostProbes*ws.Utilisation && s.Walsender.Share(evStandbyConfirm) >= MostProbes*ws.Own:
		v := newVerdict(Inconclusive, math.Min(conf, 0.6),
			fmt.Sprintf("walsender waited for physical standbys (%s) in %s of probes", evStandbyConfirm, pct(s.Walsender.Share(evStandbyConfirm))), feeding)
		v.Limit = StageWalsender
		v.Cause = "the walsender holds changes back until the physical standbys listed in synchronized_standby_slots confirm them (17+, a failover slot): a lagging or absent standby limits this path; check pg_stat_replication for those standbys, or remove a dead one from synchronized_standby_slots"
		return v
	case ws.Own >= MostProbes*ws.Utilisation:
		v := newVerdict(Inconclusive, math.Min(conf, 0.6),
			fmt.Sprintf("walsender waited on its own resources in %s of probes (%s), not on I/O", pct(ws.Own), ws.OwnTop), feeding)
		v.Limit = StageWalsender
		v.Cause = "the walsender is the limit, waiting on locks or LWLocks on the publisher (see the events above): find who holds them (pg_locks, pg_stat_activity)"
		return v
	case in.ProcPub:
		return newVerdict(WalsenderDecodeCPU, conf,
			fmt.Sprintf("walsender CPU %s of one core, run queue %s", pct(ws.CPU), pct(ws.Runq)), feeding)
	default:
		v := newVerdict(WalsenderDecodeCPU, conf*0.6,
			fmt.Sprintf("walsender had no wait event in %s of probes", pct(ws.Busy)), feeding)
		v.Caveats = append(v.Caveats, "no /proc figures for the publisher: a CPU-starved walsender would look the same")
		return v
	}
}

// mostlyBusyLimit names a stage that is not saturated by the Saturated
// threshold but works most of the window (utilisation at least MostlyBusy)
// while the pipeline around it agrees: for the walsender, it is not blocked
// on the link (under LinkBlocked) and the apply worker waits for data; for
// the apply worker, it does not wait for data and the walsender is blocked
// on it. A starved walsender's CPU and run queue can add up to less than
// the window (83% on a PostgreSQL 15 lab run whose apply worker waited for
// data 72% of the time).
func mostlyBusyLimit(in Input, ws, ap Stage) (Verdict, bool) {
	apWaits := !in.HasSubscriber || (ap.Known() && ap.Starved >= Idle)
	if ws.Known() && ws.Utilisation >= MostlyBusy && ws.Starved < Idle && ws.Blocked < LinkBlocked && apWaits {
		margins := []float64{ws.Utilisation - MostlyBusy, LinkBlocked - ws.Blocked, Idle - ws.Starved}
		if in.HasSubscriber {
			margins = append(margins, ap.Starved-Idle)
		}
		v := walsenderVerdict(in, ws, ap, confidence(margins...))
		v.Limit = StageWalsender
		return v, true
	}
	if in.HasSubscriber && ap.Known() && ap.Probes >= MinProbes && ap.Utilisation >= MostlyBusy && ap.Starved < Idle && ws.Known() && ws.Blocked >= LinkBlocked {
		v := applyVerdict(in, ap, ws, confidence(ap.Utilisation-MostlyBusy, Idle-ap.Starved, ws.Blocked-LinkBlocked))
		v.Limit = StageApply
		return v, true
	}
	return Verdict{}, false
}

// starved reports whether a saturated stage's time went mostly to waiting
// for a CPU rather than to running: its run-queue share reaches StarvedRunq
// and at least half its CPU share. A process that runs 79% and waits 20%
// (a busy apply worker beside the host's other work) is CPU-bound; one that
// runs 50% and waits 50% (a CPU hog beside it) is starved.
func starved(s Stage) bool {
	return s.Runq >= StarvedRunq && s.Runq >= s.CPU/2
}

// linkLimit names the link: the walsender is blocked on the socket while
// the apply worker (when observed) waits for data, and neither is saturated.
func linkLimit(in Input, ws, ap Stage) (Verdict, bool) {
	if !ws.Known() || ws.Blocked < LinkBlocked || (in.HasSubscriber && ap.Known() && ap.Starved < Idle) {
		return Verdict{}, false
	}
	margins := []float64{ws.Blocked - LinkBlocked, Saturated - ws.Utilisation}
	if in.HasSubscriber && ap.Known() {
		margins = append(margins, ap.Starved-Idle, Saturated-ap.Utilisation)
	}
	ev := []string{
		fmt.Sprintf("walsender blocked on the socket (%s) %s of the time (%s of probes; events /proc shows as stale are not counted)", evWriteData, pct(ws.Blocked), pct(in.Summary.Walsender.Share(evWriteData, evWalSenderMain))),
	}
	if in.ProcPub {
		ev = append(ev, fmt.Sprintf("walsender CPU %s, run queue %s: %s busy, not saturated", pct(ws.CPU), pct(ws.Runq), pct(ws.Utilisation)))
	}
	if in.HasSubscriber && ap.Known() {
		ev = append(ev, fmt.Sprintf("apply worker waiting for data (%s) in %s of probes, %s busy", evApplyMain, pct(ap.Starved), pct(ap.Utilisation)))
	}
	v := newVerdict(Network, confidence(margins...), ev...)
	v.Limit = StageLink
	if !in.ProcPub {
		v.Confidence = math.Min(v.Confidence, 0.5)
		v.Caveats = append(v.Caveats, "no /proc figures for the publisher: a CPU-starved walsender shows the same stale wait event")
	}
	if !in.HasSubscriber {
		v.Confidence = math.Min(v.Confidence, 0.6)
		v.Caveats = append(v.Caveats, "the consumer is not observed: a slow consumer (its own CPU or disk) blocks the walsender the same way; diagnose with --subscriber, or check the consumer's own figures")
	}
	return v, true
}

// configStall says why nothing can move whatever the processes do, or ""
// when the path is configured to run.
func configStall(in Input) string {
	switch {
	case !in.SlotFound:
		return "the slot does not exist"
	case in.WALStatus == "lost" || (in.Invalidation != "" && in.Invalidation != "invalidated"):
		return lostCause(in.Invalidation)
	case in.Invalidation == "invalidated":
		return lostCause("")
	case in.HasSubscriber && in.Subscription == "":
		if !in.SlotActive {
			return "no subscription on the observed subscriber uses this slot, and no consumer is connected"
		}
		return ""
	case in.HasSubscriber && !in.SubEnabled:
		return fmt.Sprintf("subscription %s is disabled (ALTER SUBSCRIPTION %s ENABLE)", in.Subscription, in.Subscription)
	case in.ApplyErrors > 0:
		return fmt.Sprintf("the apply worker of %s failed %d time(s) during the window (apply_error_count): read the subscriber's log for the error", in.Subscription, in.ApplyErrors)
	case in.HasSubscriber && !in.ApplyWorker:
		return fmt.Sprintf("subscription %s is enabled but has no apply worker (crashing or restarting; read the subscriber's log)", in.Subscription)
	case !in.SlotActive && in.Summary.Progress() <= 0:
		return "no walsender serves the slot (active = false): its consumer is not connected"
	}
	return ""
}

// lostCause names why a slot was invalidated, from 17's
// invalidation_reason ("" when the server does not say).
func lostCause(reason string) string {
	const fix = "; recreate the slot (for a subscription: drop and re-create it, or ALTER SUBSCRIPTION ... SET (slot_name = ...) on a new slot) and resynchronise the tables"
	switch reason {
	case "wal_removed":
		return "the slot is invalidated (wal_removed): WAL it still needed was removed, past max_slot_wal_keep_size" + fix
	case "rows_removed":
		return "the slot is invalidated (rows_removed): catalog rows it needed were removed (on a standby: a conflict with recovery; hot_standby_feedback with a physical slot prevents it)" + fix
	case "wal_level_insufficient":
		return "the slot is invalidated (wal_level_insufficient): wal_level on the primary was lowered below logical; set it back to logical" + fix
	case "idle_timeout":
		return "the slot is invalidated (idle_timeout): it stayed inactive longer than idle_replication_slot_timeout" + fix
	case "":
		return "the slot is lost or invalidated and the server does not say why (16 and older: wal_status = lost means WAL it needed was removed; 16's conflicting = true also covers conflicts with recovery)" + fix
	default:
		return fmt.Sprintf("the slot is invalidated (%s)", reason) + fix
	}
}

// nothingMoves reports a backlog that neither sending nor confirming
// advanced during the window while WAL was generated.
func nothingMoves(in Input) bool {
	s := in.Summary
	return s.Progress() <= 0 && s.Generated > 0 && in.MedianLag > CaughtUpLag
}

// nextLimit picks, among the stages other than the limit, the measured one
// with the highest utilisation: past the limit it saturates first, at
// 1/utilisation times today's rate.
func nextLimit(limit string, st []Stage) *NextLimit {
	var best *Stage
	for i := range st {
		s := &st[i]
		if s.Name == limit || !s.Known() || s.Utilisation <= 0 {
			continue
		}
		if best == nil || s.Utilisation > best.Utilisation {
			best = s
		}
	}
	if best == nil || best.Utilisation < 0.1 {
		// Every other stage idles most of the window (a blocked walsender
		// behind a lock, an apply worker waiting behind a decoder):
		// naming one as "next at 200x" would be noise.
		return nil
	}
	best.Role = "next"
	n := &NextLimit{Stage: best.Name, Headroom: 1 / best.Utilisation}
	n.Text = fmt.Sprintf("next limit: the %s, %s busy or waiting on its own resources: past the %s it saturates %s today's rate",
		stageNoun(best.Name), pct(best.Utilisation), stageNoun(limit), headroom(n.Headroom))
	if limit != StageLink {
		n.Text += " (the link's capacity is not measured)"
	}
	return n
}

func stageNoun(name string) string {
	switch name {
	case StageApply:
		return "apply worker"
	case StageParallel:
		return "busiest parallel apply worker"
	}
	return name
}

// starvedEvent is the wait event of an apply-side stage waiting for work.
func starvedEvent(s Stage) string {
	if s.Name == StageParallel {
		return parallelStarved[0]
	}
	return evApplyMain
}

// headroom prints a factor on today's rate.
func headroom(h float64) string {
	if h >= 10 {
		return "beyond 10x"
	}
	return fmt.Sprintf("at about %.1fx", h)
}

// confidence turns the margins of a decision's conditions (distances from
// their thresholds, in share points) into a confidence: the smallest margin
// decides, 0.5 at the threshold, 0.95 at marginScale or more.
func confidence(margins ...float64) float64 {
	m := 1.0
	for _, x := range margins {
		m = math.Min(m, x/marginScale)
	}
	m = math.Max(0, math.Min(1, m))
	return 0.5 + 0.45*m
}
