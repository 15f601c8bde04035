package classify

import (
	"fmt"
	"math"

	"github.com/lagscope/lagscope/internal/measure"
)

// applyVerdict names the verdict when an apply-side stage (the leader or
// the busiest parallel apply worker) is the limit.
func applyVerdict(in Input, ap, ws Stage, conf score) Verdict {
	s := in.Summary
	p, noun := s.Apply, "apply worker"
	if ap.Name == StageParallel && len(s.Parallel) > 0 {
		p, noun = s.Parallel[0], "parallel apply worker"
	}
	v := applyStageVerdict(in, ap, p, noun, ws, conf)
	v.d.stage, v.d.noun = ap, noun
	v.d.parallel = ap.Name == StageParallel
	return v
}

// applyStageVerdict names what saturates an apply-side stage (the leader or
// a parallel worker, p being its measurement, noun its name in the text).
func applyStageVerdict(in Input, ap Stage, p measure.Proc, noun string, ws Stage, conf score) Verdict {
	s := in.Summary
	switch {
	case ap.Own >= MostProbes*ap.Utilisation:
		v := newStageVerdict(ap.Name, ResourceOwnWaits, conf,
			ownLine(noun, ap, in.ProcSub))
		v.Blockers = in.Blockers
		// What helps depends on what it waits for.
		switch locks, io, sr, sleeps := p.TypeShare(waitTypeLock), p.TypeShare(waitTypeIO), p.Share(evSyncRep), p.TypeShare(waitTypeTimeout); {
		case sr >= MostProbes*ap.Own:
			v.d.fill, v.d.fillShare = FillSyncRep, sr
		case locks >= MostProbes*ap.Own:
			v.d.fill = FillLock
		case io >= MostProbes*ap.Own:
			v.d.fill = FillIO
			if !in.ProcSub {
				// A read's wait event also covers the kernel's CPU time
				// for it: from a fast disk, a worker with 80% of its
				// probes in DataFileRead ran 60% on a CPU (sub-cpu-io).
				v.Confidence = math.Min(v.Confidence, capIONoProc)
				v.Caveats = append(v.Caveats, "without /proc the time in I/O wait events includes the kernel's CPU time for the reads: from a fast disk the worker can be as much CPU-bound as waiting; "+missingRunq("subscriber", noun))
			}
			v = withCPUPart(v, ap)
		case sleeps >= MostProbes*ap.Own:
			v.d.fill = FillSleep
		case io+p.TypeShare(waitTypeLWLock) < ap.Own/2:
			v.d.fill = FillOtherWait
		}
		return v
	case in.ProcSub && starved(ap):
		return quotaStarved(newStageVerdict(ap.Name, ResourceRunQueue, conf,
			fmt.Sprintf("%s waited on the run queue %s of the time (runnable, not running) and ran %s", noun, pct(ap.Runq), pct(ap.CPU)),
			hostLine("subscriber", s.SubHostBusy)), "subscriber", noun, p.Throttle, s.SubHostBusy)
	case in.ProcSub:
		runq := fmt.Sprintf("%s run queue %s: it gets most of the CPU it asks for", noun, pct(ap.Runq))
		if ap.Runq >= StarvedRunq {
			runq = fmt.Sprintf("%s run queue %s: the subscriber's CPU is shared as well, but it runs more than twice as long as it waits", noun, pct(ap.Runq))
		}
		v := newStageVerdict(ap.Name, ResourceCPU, conf,
			fmt.Sprintf("%s CPU %s of one core, no wait event in %s of probes", noun, pct(ap.CPU), pct(p.Share(measure.CPUEvent))),
			runq,
			fmt.Sprintf("%s waited for work (%s) in only %s of probes", noun, starvedEvent(ap), pct(ap.Starved)),
			walsenderLine(ws))
		if ap.CPU < FullCore {
			v.d.fill = FillCPUPart
		}
		return withIOPart(v, p, ap)
	default:
		res, c := cpuBoundNoProc(s.SubCPU, "subscriber", conf, unknownApply)
		v := newStageVerdict(ap.Name, res, c,
			fmt.Sprintf("%s had no wait event (on CPU or runnable) in %s of probes", noun, pct(ap.Busy)),
			fmt.Sprintf("%s waited for work (%s) in only %s of probes", noun, starvedEvent(ap), pct(ap.Starved)),
			contentionLine("subscriber", s.SubCPU))
		v.Caveats = append(v.Caveats, missingRunq("subscriber", noun))
		if res == ResourceCPU {
			v.Caveats = append(v.Caveats, "sessions that run on a CPU without sleeping (a CPU-bound query) stretch lagscope's burst less than waking ones: an apply worker starved by them can look like this one without /proc")
		}
		return heldBackNoProc(v, "subscriber", noun, s.SubCPU)
	}
}

// FullCore is the CPU share of one core from which a busy apply-side stage
// "runs on a full core"; below it the headline says how its time splits.
const FullCore = 0.85

// IOPart is the share of an apply-side stage's probes on I/O waits from
// which a CPU-bound stage's verdict names the disk as well: data larger
// than memory makes a worker split its time between CPU and reads.
const IOPart = 0.2

// withIOPart adds the disk to a CPU-bound apply-side verdict when the stage
// spent IOPart or more of its time on I/O: with /proc, the time it left to
// waits (a read's kernel time counts as CPU, so its I/O probes overlap its
// CPU share); without, its share of probes.
func withIOPart(v Verdict, p measure.Proc, st Stage) Verdict {
	probes := p.TypeShare(waitTypeIO)
	io := probes
	if st.CPU >= 0 {
		io = min(io, st.Own)
	}
	if io < IOPart {
		return v
	}
	v.d.also, v.d.alsoShare, v.d.ioProbes, v.d.ioTop = alsoIO, io, probes, topEvents(p, 2)
	return v
}

// withCPUPart adds the CPU to an apply-side verdict of I/O waits when /proc
// shows the stage IOPart or more of the window on a CPU: the mirror of
// withIOPart, for a worker whose reads come from a fast disk (a read's
// kernel time counts as CPU and as the read's wait event at once).
func withCPUPart(v Verdict, st Stage) Verdict {
	if st.CPU < IOPart {
		return v
	}
	v.d.also, v.d.alsoShare = alsoCPU, st.CPU
	return v
}

// walsenderVerdict names the verdict when the walsender is the limit: by
// what fills its time (run queue, I/O, other waits, CPU).
func walsenderVerdict(in Input, ws, ap Stage, conf score) Verdict {
	s := in.Summary
	feeding := fmt.Sprintf("apply worker waiting for data (%s) in %s of probes", evApplyMain, pct(ap.Starved))
	if !in.HasSubscriber {
		feeding = "no subscriber observed: judged from the publisher side only"
	}
	switch {
	case in.ProcPub && starved(ws):
		return quotaStarved(newStageVerdict(StageWalsender, ResourceRunQueue, conf,
			fmt.Sprintf("walsender waited on the run queue %s of the time and ran only %s of one core", pct(ws.Runq), pct(ws.CPU)),
			fmt.Sprintf("its wait events (%s) are stale while it waits for a CPU: run-queue delay shows starvation", topEvents(s.Walsender, 2)),
			hostLine("publisher", s.PubHostBusy), feeding), "publisher", "walsender", s.Walsender.Throttle, s.PubHostBusy)
	case ws.Own >= MostProbes*ws.Utilisation && s.Walsender.TypeShare(waitTypeIO) >= ws.Own/2:
		v := newStageVerdict(StageWalsender, ResourceIO, conf,
			fmt.Sprintf("walsender waited on I/O in %s of probes (%s)", pct(s.Walsender.TypeShare(waitTypeIO)), ws.OwnTop), feeding)
		if s.Walsender.Share(evReorderRead, evReorderWrite) > s.Walsender.Share(evWALRead) {
			v.Caveats = append(v.Caveats, "most I/O is spill files (ReorderBuffer): raise logical_decoding_work_mem or use streaming")
		}
		return v
	case ws.Own >= MostProbes*ws.Utilisation && s.Walsender.Share(evStandbyConfirm) >= MostProbes*ws.Own:
		return newStageVerdict(StageWalsender, ResourceStandby, conf,
			fmt.Sprintf("walsender waited for physical standbys (%s) in %s of probes", evStandbyConfirm, pct(s.Walsender.Share(evStandbyConfirm))),
			"the slot is a failover slot (17+): its walsender sends nothing the physical standbys listed in synchronized_standby_slots have not confirmed", feeding)
	case ws.Own >= MostProbes*ws.Utilisation:
		v := newStageVerdict(StageWalsender, ResourceOwnWaits, conf.capped(capOwnWaits),
			fmt.Sprintf("walsender waited on its own resources %s of the time (of probes: %s), not on I/O", pct(ws.Own), ws.OwnTop), feeding)
		v.d.cause = "the walsender is the limit, waiting on locks or LWLocks on the publisher (see the events above): find who holds them (pg_locks, pg_stat_activity)"
		return v
	case in.ProcPub:
		return newStageVerdict(StageWalsender, ResourceCPU, conf,
			fmt.Sprintf("walsender CPU %s of one core, run queue %s", pct(ws.CPU), pct(ws.Runq)), feeding)
	default:
		res, c := cpuBoundNoProc(s.PubCPU, "publisher", conf, unknownWalsender)
		v := newStageVerdict(StageWalsender, res, c,
			fmt.Sprintf("walsender had no wait event (on CPU or runnable) in %s of probes", pct(ws.Busy)), feeding,
			contentionLine("publisher", s.PubCPU))
		v.Caveats = append(v.Caveats, missingRunq("publisher", "walsender"))
		return heldBackNoProc(v, "publisher", "walsender", s.PubCPU)
	}
}

// ownLine is the evidence line of an apply-side stage waiting on its own
// resources: its share of the window, beside the raw probe shares of the
// top events (with /proc, waits it leaves no time for are stale and not
// counted, so the two can differ).
func ownLine(noun string, st Stage, proc bool) string {
	if !proc {
		return fmt.Sprintf("%s waited on its own resources in %s of probes (%s)", noun, pct(st.Own), st.OwnTop)
	}
	return fmt.Sprintf("%s waited on its own resources %s of the time (of probes: %s; events /proc shows as stale are not counted)", noun, pct(st.Own), st.OwnTop)
}
