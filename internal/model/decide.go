package model

import (
	"fmt"
	"math"

	"github.com/lagscope/lagscope/internal/topology"
)

// saturatedLimit names a stage that works all the time (utilisation at
// least Saturated, waiting for its upstream less than Idle).
func saturatedLimit(in Input, ws, ap Stage, par *Stage) (Verdict, bool) {
	wsSat := ws.Known() && ws.Utilisation >= Saturated && ws.Starved < Idle && (ws.Probes >= MinProbes || in.ProcOf(topology.Publisher))
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
	floor, floorName := Saturated, "Saturated"
	if (lim.Name == StageWalsender && (!in.HasSubscriber || other.Starved >= Idle)) ||
		(lim.Name != StageWalsender && other.Blocked >= LinkBlocked) {
		floor, floorName = MostlyBusy, "MostlyBusy"
	}
	margins := []margin{{stageNoun(lim.Name) + " over " + floorName, lim.Utilisation - floor}, {stageNoun(lim.Name) + " waiting for work under Idle", Idle - lim.Starved}}
	if other.Known() {
		margins = append(margins, margin{stageNoun(lim.Name) + " busier than the " + stageNoun(other.Name), lim.Utilisation - other.Utilisation})
	}
	conf := confidence(margins...)
	var v Verdict
	if lim.Name != StageWalsender {
		v = applyVerdict(in, lim, ws, conf)
	} else {
		v = walsenderVerdict(in, lim, ap, conf)
	}
	return v, true
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
		// Its border with the link: LinkBlocked, or for a walsender that
		// waits longer for a CPU than on the socket, that
		// (starvedBesideSocket).
		socket := margin{"walsender blocked under LinkBlocked", LinkBlocked - ws.Blocked}
		if starvedLonger(in, ws) {
			socket = runqOverSocket(ws)
		}
		margins := []margin{{"walsender over MostlyBusy", ws.Utilisation - MostlyBusy}, socket, {"walsender waiting for WAL under Idle", Idle - ws.Starved}}
		if in.HasSubscriber {
			margins = append(margins, margin{"apply worker waiting for data over Idle", ap.Starved - Idle})
		}
		return walsenderVerdict(in, ws, ap, confidence(margins...)), true
	}
	if in.HasSubscriber && ap.Known() && ap.Probes >= MinProbes && ap.Utilisation >= MostlyBusy && ap.Starved < Idle && ws.Known() && ws.Blocked >= LinkBlocked {
		return applyVerdict(in, ap, ws, confidence(margin{"apply worker over MostlyBusy", ap.Utilisation - MostlyBusy}, margin{"apply worker waiting for data under Idle", Idle - ap.Starved}, margin{"walsender blocked over LinkBlocked", ws.Blocked - LinkBlocked})), true
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
	if v, ok := starvedBesideSocket(in, ws, ap); ok {
		return v, true
	}
	margins := []margin{{"walsender blocked over LinkBlocked", ws.Blocked - LinkBlocked}, {"walsender under Saturated", Saturated - ws.Utilisation}}
	if in.HasSubscriber && ap.Known() {
		margins = append(margins, margin{"apply worker waiting for data over Idle", ap.Starved - Idle}, margin{"apply worker under Saturated", Saturated - ap.Utilisation})
	}
	// Without the consumer observed, a consumer slower than the walsender
	// fills the socket exactly like a slow network.
	res := ResourceSocket
	if !in.HasSubscriber {
		res = ResourceSocketOrConsumer
	}
	v := newStageVerdict(StageLink, res, confidence(margins...))
	v.d.basis = basisLink
	v.d.linkHeld = drainedThroughLink(in, ws) && in.MedianLag <= CaughtUpLag
	if !in.ProcOf(topology.Publisher) {
		if nv, ok := linkOrStarvedNoProc(in, ws, ap, v); ok {
			v = nv
		} else {
			v.Confidence = math.Min(v.Confidence, capLinkNoBurst)
			v.Caveats = append(v.Caveats, "no /proc figures for the publisher, and no CPU bursts in these samples (recorded before lagscope 0.4's samples version 4): a CPU-starved walsender shows the same stale wait event. "+missingRunq("publisher", "walsender"))
		}
	}
	if v.Name == NetworkOrConsumer {
		v = publisherOnlyLink(v)
	}
	return v, true
}

// starvedBesideSocket names a starved walsender that also blocks on the
// socket: with /proc on the publisher, it is starved (starved) and waits
// longer in the run queue than on the socket. Its short turns on the CPU
// fill the socket faster than the apply worker empties it, so it blocks;
// then, woken, it waits for a CPU while the apply worker empties the socket
// and waits for data. A slow link leaves the walsender little run queue
// (the lab's links: 1-16% beside 36-89% blocked); the lab's busy loops on
// the publisher's CPU made 41-47% run queue, blocked 3-12% on one kernel
// and 36% on another (6.18), where the rule "link" took it for the network.
func starvedBesideSocket(in Input, ws, ap Stage) (Verdict, bool) {
	if !starvedLonger(in, ws) {
		return Verdict{}, false
	}
	return walsenderVerdict(in, ws, ap, confidence(runqOverSocket(ws), margin{"walsender run queue over StarvedRunq", ws.Runq - StarvedRunq})), true
}

// runqOverSocket is a starved walsender's margin from the link: its run
// queue over its socket-blocked share.
func runqOverSocket(ws Stage) margin {
	return margin{"walsender run queue over its socket-blocked share", ws.Runq - ws.Blocked}
}

// starvedLonger reports whether /proc shows the walsender starved and
// longer on the run queue than asleep on the socket.
func starvedLonger(in Input, ws Stage) bool {
	return in.ProcOf(topology.Publisher) && starved(ws) && ws.Runq > ws.Blocked
}

// NextLimitFrom is the utilisation under which no stage is named the next
// limit: every other stage idles most of the window (a blocked walsender
// behind a lock, an apply worker waiting behind a decoder), and naming one
// as "next at 200x" would be noise.
const NextLimitFrom = 0.1

// nextLimit picks, among the stages other than the limit, the measured one
// with the highest utilisation: past the limit it saturates first, at its
// headroom times today's rate (headroomIn).
func nextLimit(limit StageName, st []Stage, in Input) *NextLimit {
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
	if best == nil || best.Utilisation < NextLimitFrom {
		return nil
	}
	best.Role = "next"
	h, calibrated := headroomIn(*best, in)
	n := &NextLimit{Stage: best.Name, Headroom: h}
	n.Text = fmt.Sprintf("next limit: the %s, %s busy or waiting on its own resources", stageNoun(best.Name), pct(best.Utilisation))
	switch w := best.Work(); {
	case calibrated:
		n.Text += fmt.Sprintf(" (an idle worker's wakes cost it more per byte: busy, it writes %.1fx the WAL it is sent at about %.0f ms a MB, measured in lagscope's lab on %s)", in.SubWALPerSent, msPerMB(in.calibration().ApplyCostPerWAL), in.calibration().Machine)
	case pct(best.Utilisation-w) != pct(0):
		n.Text += fmt.Sprintf(" (%s of it waiting to be scheduled at its wakes, which a busy process does not have)", pct(best.Utilisation-w))
	}
	n.Text += fmt.Sprintf(": past the %s it saturates %s today's rate", stageNoun(limit), headroom(n.Headroom))
	if limit != StageLink {
		n.Text += " (the link's capacity is not measured)"
	}
	return n
}

func stageNoun(name StageName) string {
	switch name {
	case StageApply:
		return "apply worker"
	case StageParallel:
		return "busiest parallel apply worker"
	}
	return string(name)
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

// DrainedLagTime is the median backlog, in seconds of its own drain, from
// which a walsender blocked on the socket for most of the window was held
// back by the link rather than caught up.
const DrainedLagTime = 1.0

// drainedThroughLink says whether a backlog was held back by the link for
// most of the window: the walsender blocked on the socket in most of it
// while the median backlog took DrainedLagTime or more to drain. Such a
// window is not caught up however few bytes are left (a 12 MB backlog
// through a 2 MB/s link, with the walsender blocked 71-74%, was
// "caught-up 0.95" under a 16 MiB byte threshold).
func drainedThroughLink(in Input, ws Stage) bool {
	rate := in.Summary.Progress()
	return ws.Known() && ws.Blocked >= MostProbes && rate > 0 && float64(in.MedianLag)/rate >= DrainedLagTime
}
