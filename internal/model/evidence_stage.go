package model

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/topology"
)

// limitLines state what a limiting stage did (basisLimit): its own figures
// by what fills its time, with /proc or without it, and what the stage it
// was weighed against did.
func limitLines(v Verdict, in Input) []Evidence {
	if v.Limit == StageWalsender {
		return walsenderLines(v.d, in)
	}
	return applyLines(v.d, in)
}

// walsenderLines state a limiting walsender's figures (d.stage), then what
// the apply side (d.other) did meanwhile.
func walsenderLines(d diagnosis, in Input) []Evidence {
	s, ws := in.Summary, d.stage
	feeding := feedingLine(d.other, in.HasSubscriber)
	switch {
	case d.resource == ResourceIO:
		share := s.Walsender.TypeShare(waitTypeIO)
		return []Evidence{item(EvWalsenderIO, fmt.Sprintf("walsender waited on I/O in %s of probes (%s)", pct(share), ws.OwnTop), Figures{"probe_share": share}), feeding}
	case d.resource == ResourceStandby:
		share := s.Walsender.Share(evStandbyConfirm)
		return []Evidence{item(EvWalsenderStandby, fmt.Sprintf("walsender waited for physical standbys (%s) in %s of probes", evStandbyConfirm, pct(share)), Figures{"probe_share": share}),
			said(EvFailoverSlot, "the slot is a failover slot (17+): its walsender sends nothing the physical standbys listed in synchronized_standby_slots have not confirmed"), feeding}
	case d.resource == ResourceOwnWaits:
		return []Evidence{item(EvWalsenderOwnWaits, fmt.Sprintf("walsender waited on its own resources %s of the time (of probes: %s), not on I/O", pct(ws.Own), ws.OwnTop), Figures{"own_wait_share": ws.Own}), feeding}
	case !in.ProcOf(topology.Publisher):
		return []Evidence{item(EvWalsenderNoWait, fmt.Sprintf("walsender had no wait event (on CPU or runnable) in %s of probes", pct(ws.Busy)), Figures{"busy_share": ws.Busy}), feeding,
			contentionLine("publisher", s.PubCPU), competingLine("publisher", "walsender", s.PubLoad)}
	case d.resource == ResourceRunQueue:
		return []Evidence{item(EvWalsenderRunQueue, fmt.Sprintf("walsender waited on the run queue %s of the time and ran only %s of one core", pct(ws.Runq), pct(ws.CPU)), Figures{"runqueue_share": ws.Runq, "cpu_share": ws.CPU}),
			staleLine(ws, s.Walsender),
			hostLine(d.side, d.hostBusy), competingLine("publisher", "walsender", s.PubLoad), feeding}
	}
	return []Evidence{item(EvWalsenderCPU, fmt.Sprintf("walsender CPU %s of one core, run queue %s", pct(ws.CPU), pct(ws.Runq)), Figures{"cpu_share": ws.CPU, "runqueue_share": ws.Runq}), feeding}
}

// applyLines state a limiting apply-side stage's figures (d.stage, the
// leader or the busiest parallel apply worker), and with /proc, for a
// CPU-bound one, what the walsender (d.other) did meanwhile.
func applyLines(d diagnosis, in Input) []Evidence {
	s, ap, noun := in.Summary, d.stage, d.noun
	switch {
	case d.resource == ResourceOwnWaits:
		return []Evidence{ownLine(noun, ap, in.ProcOf(topology.Subscriber))}
	case !in.ProcOf(topology.Subscriber):
		return []Evidence{item(EvApplyNoWait, fmt.Sprintf("%s had no wait event (on CPU or runnable) in %s of probes", noun, pct(ap.Busy)), Figures{"busy_share": ap.Busy}),
			workLine(noun, ap), contentionLine("subscriber", s.SubCPU), competingLine("subscriber", noun, s.SubLoad)}
	case d.resource == ResourceRunQueue:
		return []Evidence{item(EvApplyRunQueue, fmt.Sprintf("%s waited on the run queue %s of the time (runnable, not running) and ran %s", noun, pct(ap.Runq), pct(ap.CPU)), Figures{"runqueue_share": ap.Runq, "cpu_share": ap.CPU}),
			hostLine(d.side, d.hostBusy), competingLine("subscriber", noun, s.SubLoad)}
	}
	runq := fmt.Sprintf("%s run queue %s: it gets most of the CPU it asks for", noun, pct(ap.Runq))
	if ap.Runq >= StarvedRunq {
		runq = fmt.Sprintf("%s run queue %s: the subscriber's CPU is shared as well, but it runs more than twice as long as it waits", noun, pct(ap.Runq))
	}
	noWait := applyProc(s, ap).Share(measure.CPUEvent)
	return []Evidence{item(EvApplyCPU, fmt.Sprintf("%s CPU %s of one core, no wait event in %s of probes", noun, pct(ap.CPU), pct(noWait)), Figures{"cpu_share": ap.CPU, "no_wait_share": noWait}),
		item(EvApplyGetsCPU, runq, Figures{"runqueue_share": ap.Runq}), workLine(noun, ap), walsenderLine(d.other)}
}

// linkLines state what the link rule saw (basisLink): the walsender
// blocked on the socket while the apply worker waits for data (the link);
// without /proc, the publisher's burst as well, which can make the same
// blocked walsender one starved of CPU, or leave the two undecided.
func linkLines(v Verdict, in Input, ws, ap Stage) []Evidence {
	observed := in.HasSubscriber && ap.Known()
	switch v.Limit {
	case StageWalsender:
		return []Evidence{item(EvWalsenderBlockedOnCPU, fmt.Sprintf("walsender in %s in %s of probes and on CPU in %s: a walsender that waits for a CPU keeps showing its last wait event", evWriteData, pct(ws.Blocked), pct(ws.Busy)),
			Figures{"blocked_share": ws.Blocked, "busy_share": ws.Busy}),
			contentionLine("publisher", in.Summary.PubCPU), competingLine("publisher", "walsender", in.Summary.PubLoad), feedingLine(ap, observed)}
	case StageLink:
	default:
		return []Evidence{walsenderLine(ws), applyLine(ap), contentionLine("publisher", in.Summary.PubCPU)}
	}
	probes := in.Summary.Walsender.Share(evWriteData, evWalSenderMain)
	out := []Evidence{item(EvSocketBlocked, fmt.Sprintf("walsender blocked on the socket (%s) %s of the time (%s of probes; events /proc shows as stale are not counted)", evWriteData, pct(ws.Blocked), pct(probes)),
		Figures{"blocked_share": ws.Blocked, "probe_share": probes})}
	if in.ProcOf(topology.Publisher) {
		out = append(out, item(EvWalsenderNotSaturated, fmt.Sprintf("walsender CPU %s, run queue %s: %s busy, not saturated", pct(ws.CPU), pct(ws.Runq), pct(ws.Utilisation)),
			Figures{"cpu_share": ws.CPU, "runqueue_share": ws.Runq, "utilisation": ws.Utilisation}))
	}
	if observed {
		out = append(out, item(EvApplyStarvedBusy, fmt.Sprintf("apply worker waiting for data (%s) in %s of probes, %s busy", evApplyMain, pct(ap.Starved), pct(ap.Utilisation)),
			Figures{"probe_share": ap.Starved, "utilisation": ap.Utilisation}))
	}
	if v.d.linkHeld {
		// Few bytes, but held back: say why this is not caught up.
		out = append(out, item(EvLinkHeldBacklog, fmt.Sprintf("the backlog (%s at the window's start, median %s, %s at its end) drained at the link's pace: the link held it back, the path was not caught up", size(in.Summary.Lag.Start), size(in.MedianLag), size(in.Summary.Lag.Total)),
			Figures{"start_bytes": float64(in.Summary.Lag.Start), "median_bytes": float64(in.MedianLag), "end_bytes": float64(in.Summary.Lag.Total)}))
	}
	if !in.ProcOf(topology.Publisher) {
		out = append(out, contentionLine("publisher", in.Summary.PubCPU))
	}
	return out
}

// feedingLine says what the apply side did while the walsender limited:
// waiting for data, or not observed.
func feedingLine(ap Stage, observed bool) Evidence {
	if !observed {
		return said(EvNoSubscriber, "no subscriber observed: judged from the publisher side only")
	}
	return item(EvApplyWaitingForData, fmt.Sprintf("apply worker waiting for data (%s) in %s of probes", evApplyMain, pct(ap.Starved)), Figures{"probe_share": ap.Starved})
}

// workLine says how little an apply-side stage waited for work.
func workLine(noun string, ap Stage) Evidence {
	return item(EvApplyWaitedForWork, fmt.Sprintf("%s waited for work (%s) in only %s of probes", noun, starvedEvent(ap), pct(ap.Starved)), Figures{"probe_share": ap.Starved})
}

// ownLine is the evidence line of an apply-side stage waiting on its own
// resources: its share of the window, beside the raw probe shares of the
// top events (with /proc, waits it leaves no time for are stale and not
// counted, so the two can differ).
func ownLine(noun string, st Stage, proc bool) Evidence {
	figs := Figures{"own_wait_share": st.Own}
	if !proc {
		return item(EvApplyOwnWaits, fmt.Sprintf("%s waited on its own resources in %s of probes (%s)", noun, pct(st.Own), st.OwnTop), figs)
	}
	return item(EvApplyOwnWaits, fmt.Sprintf("%s waited on its own resources %s of the time (of probes: %s; events /proc shows as stale are not counted)", noun, pct(st.Own), st.OwnTop), figs)
}

// walsenderLine says where the walsender's time went.
func walsenderLine(s Stage) Evidence {
	return stageLine(EvWalsenderStage, "walsender", s, "blocked on the socket", "waiting for WAL")
}

// applyLine says where the apply worker's time went.
func applyLine(s Stage) Evidence {
	return stageLine(EvApplyStage, "apply worker", s, "blocked on parallel workers", "waiting for data")
}

// stageLine says where a stage's time went.
func stageLine(key EvidenceKey, noun string, s Stage, blocked, starved string) Evidence {
	if !s.Known() {
		return said(key, noun+": not measured")
	}
	out := noun
	figs := Figures{"own_wait_share": s.Own, "blocked_share": s.Blocked, "starved_share": s.Starved}
	if s.CPU >= 0 {
		out += fmt.Sprintf(" CPU %s, run queue %s", pct(s.CPU), pct(s.Runq))
		figs["cpu_share"], figs["runqueue_share"] = s.CPU, s.Runq
	} else {
		out += fmt.Sprintf(" on CPU in %s of probes", pct(s.Busy))
		figs["busy_share"] = s.Busy
	}
	if s.Own >= 0.01 {
		out += fmt.Sprintf(", own waits %s (%s)", pct(s.Own), s.OwnTop)
	}
	if s.Blocked >= 0.01 {
		out += fmt.Sprintf(", %s %s", blocked, pct(s.Blocked))
	}
	if s.Starved >= 0.01 {
		out += fmt.Sprintf(", %s %s", starved, pct(s.Starved))
	}
	return item(key, out, figs)
}

// hostLine is the evidence line of a side's host CPU (no text when it is
// not known).
func hostLine(side string, busy float64) Evidence {
	if busy < 0 {
		return Evidence{}
	}
	return item(EvHostBusy, fmt.Sprintf("%s host CPU busy %s", side, pct(busy)), Figures{"busy_share": busy})
}

// contentionLine is the evidence line of a side's burst (no text when it
// has none).
func contentionLine(side string, c measure.Contention) Evidence {
	if !c.Known() {
		return Evidence{}
	}
	figs := Figures{"stretch": c.Stretch, "bursts": float64(c.Bursts)}
	room := "CPUs with room"
	switch {
	case heldBack(c):
		room = "sessions held back"
	case roomOf(c) == roomSaturated:
		room = "saturated CPUs"
	case roomOf(c) == roomPartly:
		room = "busy CPUs"
	}
	line := fmt.Sprintf("%s measured from inside the server (no /proc): a burst of fixed work took %.1fx its bare time (median of %d bursts): %s (under %.0fx: room; from %.0fx: saturated)",
		side, c.Stretch, c.Bursts, room, StretchFree, StretchSaturated)
	if roomOf(c) == roomSaturated && !heldBack(c) {
		line += fmt.Sprintf("; a process that wants a CPU all the time would wait for one about %s of the time (1 - 1/stretch)", pct(c.RunqEstimate()))
		figs["runqueue_share"] = c.RunqEstimate()
	}
	if heldBack(c) {
		line += fmt.Sprintf("; its sleeps woke %.1f ms late at the median (from %.0f ms: held back, as tasks under a cgroup CPU limit wait for the next quota period)", c.LateMedianMS, LateHeld)
		figs["late_median_ms"] = c.LateMedianMS
		return item(EvContention, line, figs)
	}
	if c.LateProbes > 0 {
		line += fmt.Sprintf("; its sleeps woke %.1f ms late at the 90th percentile", c.LateP90MS)
		figs["late_p90_ms"] = c.LateP90MS
	}
	return item(EvContention, line, figs)
}

// staleLine says that a starved walsender's wait events are stale; one
// that also sleeps on the socket for LinkBlocked of the time or more
// (starvedBesideSocket) is told apart from a slow link.
func staleLine(ws Stage, p measure.Proc) Evidence {
	if ws.Blocked < LinkBlocked {
		return said(EvStaleWaitEvents, fmt.Sprintf("its wait events (%s) are stale while it waits for a CPU: run-queue delay shows starvation", topEvents(p, 2)))
	}
	return said(EvStaleWaitEvents, fmt.Sprintf("its wait events (%s) are stale while it waits for a CPU; it also slept on the socket %s of the time: its short turns on the CPU fill the socket, and while it waits for a CPU the apply worker empties it and then waits for data (a slow link leaves a walsender little run queue)", topEvents(p, 2), pct(ws.Blocked)))
}
