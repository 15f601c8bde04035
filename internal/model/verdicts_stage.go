package model

import (
	"fmt"
	"math"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/topology"
)

// applyVerdict names the verdict when an apply-side stage (the leader or
// the busiest parallel apply worker) is the limit, weighed against the
// walsender ws.
func applyVerdict(in Input, ap, ws Stage, conf score) Verdict {
	noun := "apply worker"
	if ap.Name == StageParallel && len(in.Summary.Parallel) > 0 {
		noun = "parallel apply worker"
	}
	v := applyStageVerdict(in, ap, applyProc(in.Summary, ap), noun, conf)
	v.d.basis, v.d.stage, v.d.other, v.d.noun = basisLimit, ap, ws, noun
	v.d.parallel = ap.Name == StageParallel
	return v
}

// applyProc is the measurement of apply-side stage ap: the leader's, or
// the busiest parallel apply worker's.
func applyProc(s measure.Summary, ap Stage) measure.Proc {
	if ap.Name == StageParallel && len(s.Parallel) > 0 {
		return s.Parallel[0]
	}
	return s.Apply
}

// applyStageVerdict names what saturates an apply-side stage (the leader or
// a parallel worker, p being its measurement, noun its name in the text).
func applyStageVerdict(in Input, ap Stage, p measure.Proc, noun string, conf score) Verdict {
	s := in.Summary
	switch {
	case ap.Own >= MostProbes*ap.Utilisation:
		v := newStageVerdict(ap.Name, ResourceOwnWaits, conf)
		v.Blockers = in.Blockers
		// What helps depends on what it waits for.
		switch locks, io, sr, sleeps := p.TypeShare(waitTypeLock), p.TypeShare(waitTypeIO), p.Share(evSyncRep), p.TypeShare(waitTypeTimeout); {
		case sr >= MostProbes*ap.Own:
			v.d.fill, v.d.fillShare = FillSyncRep, sr
		case locks >= MostProbes*ap.Own:
			v.d.fill = FillLock
		case io >= MostProbes*ap.Own:
			v.d.fill = FillIO
			if !in.ProcOf(topology.Subscriber) {
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
	case in.ProcOf(topology.Subscriber) && starved(ap):
		return quotaStarved(newStageVerdict(ap.Name, ResourceRunQueue, conf), "subscriber", noun, p.Throttle, s.SubHostBusy)
	case in.ProcOf(topology.Subscriber):
		v := newStageVerdict(ap.Name, ResourceCPU, conf)
		if ap.CPU < FullCore {
			v.d.fill = FillCPUPart
		}
		return withIOPart(v, p, ap)
	default:
		res, c := cpuBoundNoProc(s.SubCPU, "subscriber", conf, unknownApply)
		v := newStageVerdict(ap.Name, res, c)
		v.Caveats = append(v.Caveats, missingRunq("subscriber", noun))
		if res == ResourceCPU {
			v.Caveats = append(v.Caveats, "sessions that run on a CPU without sleeping (a CPU-bound query) stretch lagscope's burst less than waking ones: an apply worker starved by them can look like this one without /proc")
			if why := sharedNoProc(s.SubCPU, s.SubLoad, in.applyCostRatio(ap)); why != "" {
				v.setScore(score{v.Confidence, v.Decided}.capped(capSharedNoProc))
				v.Caveats = append(v.Caveats, why)
			}
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

// walsenderVerdict names the verdict when the walsender ws is the limit,
// weighed against the apply side ap: by what fills its time (run queue,
// I/O, other waits, CPU).
func walsenderVerdict(in Input, ws, ap Stage, conf score) Verdict {
	v := walsenderStageVerdict(in, ws, conf)
	v.d.basis, v.d.stage, v.d.other = basisLimit, ws, ap
	return v
}

// walsenderStageVerdict names what fills the walsender's time.
func walsenderStageVerdict(in Input, ws Stage, conf score) Verdict {
	s := in.Summary
	switch {
	case in.ProcOf(topology.Publisher) && starved(ws):
		return quotaStarved(newStageVerdict(StageWalsender, ResourceRunQueue, conf), "publisher", "walsender", s.Walsender.Throttle, s.PubHostBusy)
	case ws.Own >= MostProbes*ws.Utilisation && s.Walsender.TypeShare(waitTypeIO) >= ws.Own/2:
		v := newStageVerdict(StageWalsender, ResourceIO, conf)
		if s.Walsender.Share(evReorderRead, evReorderWrite) > s.Walsender.Share(evWALRead) {
			v.Caveats = append(v.Caveats, "most I/O is spill files (ReorderBuffer): raise logical_decoding_work_mem or use streaming")
		}
		return v
	case ws.Own >= MostProbes*ws.Utilisation && s.Walsender.Share(evStandbyConfirm) >= MostProbes*ws.Own:
		return newStageVerdict(StageWalsender, ResourceStandby, conf)
	case ws.Own >= MostProbes*ws.Utilisation:
		v := newStageVerdict(StageWalsender, ResourceOwnWaits, conf.capped(capOwnWaits))
		v.d.cause = "the walsender is the limit, waiting on locks or LWLocks on the publisher (see the events above): find who holds them (pg_locks, pg_stat_activity)"
		return v
	case in.ProcOf(topology.Publisher):
		return newStageVerdict(StageWalsender, ResourceCPU, conf)
	default:
		res, c := cpuBoundNoProc(s.PubCPU, "publisher", conf, unknownWalsender)
		crowd := activeBackends(s.PubLoad)
		if res == ResourceCPU && crowd >= ActiveCrowd {
			// Many statements at once beside a walsender on CPU: starved
			// more likely than decoding, whatever room the burst found.
			res, c = ResourceRunQueue, conf.capped(capCrowdNoProc)
		}
		v := newStageVerdict(StageWalsender, res, c)
		if res == ResourceRunQueue && crowd >= ActiveCrowd {
			v.Caveats = append(v.Caveats, fmt.Sprintf("%.1f of the publisher's client backends ran a statement at a tick on average (from %.0f the walsender on CPU is taken for one waiting for a CPU): a decoding walsender beside a busy publisher with many cores looks alike", crowd, ActiveCrowd))
		}
		v.Caveats = append(v.Caveats, missingRunq("publisher", "walsender"))
		return heldBackNoProc(v, "publisher", "walsender", s.PubCPU)
	}
}
