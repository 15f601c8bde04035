package classify

import (
	"fmt"
	"math"
	"time"

	"github.com/lagscope/lagscope/internal/measure"
)

// Thresholds of the rules. Shares are of one core (CPU, run queue) or of
// probes (wait events).
const (
	// CaughtUpLag is the median unconfirmed WAL under which a path counts as caught up.
	CaughtUpLag = 16 << 20
	// BusyCPU is "near a full core" for one process (seed 000: apply 97-98%).
	BusyCPU = 0.75
	// BusyDemand is "wants a full core": CPU plus run-queue share. A process
	// that runs 70% and waits 25% on the run queue is asking for a whole core.
	BusyDemand = 0.85
	// StarvedRunq is the run-queue share at which a process counts as starved
	// (seed-style run: the walsender's run delay grew 22 s in 25 s).
	StarvedRunq = 0.25
	// MostProbes is "mostly" for wait-event shares.
	MostProbes = 0.5
	// MinProbes is the number of probes of a process below which its wait
	// events are not trusted.
	MinProbes = 20
)

// Event names (compared without regard to case; see measure.Proc.Share).
const (
	evApplyMain    = "LogicalApplyMain"
	evWriteData    = "WalSenderWriteData"
	evWaitForWAL   = "WalSenderWaitForWAL"
	evWALRead      = "WALRead"
	evReorderRead  = "ReorderBufferRead"
	evReorderWrite = "ReorderBufferWrite"
	waitTypeIO     = "IO"
	waitTypeLock   = "Lock"
	waitTypeLWLock = "LWLock"
)

// Verdict is the classifier's answer for one path.
type Verdict struct {
	Name       string   `json:"verdict"`
	Confidence float64  `json:"confidence"` // 0..1
	Headline   string   `json:"headline"`
	Cause      string   `json:"cause,omitempty"` // for stalled and inconclusive
	Evidence   []string `json:"evidence"`
	Helps      []string `json:"helps"`
	NotHelps   []string `json:"does_not_help"`
	// Caveats say what could not be seen and lowered the confidence.
	Caveats []string `json:"caveats,omitempty"`
}

// Classify names the stage that limits the path in. First match wins:
// stalled, caught-up, the subscriber's stages, the publisher's stages,
// otherwise inconclusive.
func Classify(in Input) Verdict {
	s := in.Summary
	win := time.Duration(s.WindowS * float64(time.Second)).Round(time.Second)
	v := Verdict{}
	if cause := stallCause(in); cause != "" {
		v = newVerdict(Stalled, 0.95)
		v.Cause = cause
		v.Evidence = append(v.Evidence, fmt.Sprintf("consumed %.1f MB/s while %.1f MB/s of WAL was generated over %s", mb(s.Consumed), mb(s.Generated), win))
		return v
	}
	if in.MedianLag <= CaughtUpLag && s.Lag.Total <= 2*CaughtUpLag {
		v = newVerdict(CaughtUp, 0.9, fmt.Sprintf("median unconfirmed WAL %s over %s (under %s)", size(in.MedianLag), win, size(CaughtUpLag)))
		return finish(v, in)
	}
	ws, ap := s.Walsender, s.Apply
	if ws.Probes+ap.Probes < MinProbes {
		v = newVerdict(Inconclusive, 0.3, fmt.Sprintf("only %d wait-event probes of the walsender and %d of the apply worker", ws.Probes, ap.Probes))
		v.Cause = "too few probes: sample longer"
		return finish(v, in)
	}
	waitData := ap.Share(evApplyMain)
	apCPUEv := ap.Share(measure.CPUEvent)

	// Both sides starved: the host (or hosts) are saturated by something else;
	// naming one stage would mislead.
	if in.ProcPub && in.ProcSub && ws.RunqueueShare >= StarvedRunq && ap.RunqueueShare >= StarvedRunq {
		v = newVerdict(Inconclusive, 0.6,
			fmt.Sprintf("walsender waited on the run queue %s of the time, the apply worker %s: both are starved of CPU", pct(ws.RunqueueShare), pct(ap.RunqueueShare)),
			hostLine("publisher", s.PubHostBusy))
		v.Cause = "mixed: walsender-starved and subscriber-starved at once; find what else uses the CPUs (top, pidstat) and diagnose again"
		return finish(v, in)
	}
	// The subscriber's stages.
	if in.HasSubscriber && ap.Probes >= MinProbes {
		switch {
		case in.ProcSub && ap.RunqueueShare >= StarvedRunq && waitData < MostProbes:
			v = newVerdict(SubscriberStarved, 0.85,
				fmt.Sprintf("apply worker waited on the run queue %s of the time (runnable, not running) and ran %s", pct(ap.RunqueueShare), pct(ap.CPUShare)),
				hostLine("subscriber", s.SubHostBusy))
			return finish(v, in)
		case in.ProcSub && ap.CPUShare+ap.RunqueueShare >= BusyDemand && ap.CPUShare >= BusyCPU-0.15 && apCPUEv >= MostProbes:
			v = newVerdict(SubscriberApplyCPU, 0.9,
				fmt.Sprintf("apply worker CPU %s of one core, no wait event in %s of probes", pct(ap.CPUShare), pct(apCPUEv)),
				fmt.Sprintf("apply worker run queue %s: it gets the CPU it asks for", pct(ap.RunqueueShare)),
				walsenderLine(ws))
			return finish(v, in)
		case !in.ProcSub && apCPUEv >= 0.8:
			v = newVerdict(SubscriberApplyCPU, 0.6,
				fmt.Sprintf("apply worker had no wait event (on CPU or runnable) in %s of probes", pct(apCPUEv)))
			v.Caveats = append(v.Caveats, "no /proc figures for the subscriber: a CPU-starved apply worker would look the same")
			return finish(v, in)
		case ap.TypeShare(waitTypeIO, waitTypeLock, waitTypeLWLock) >= MostProbes:
			v = newVerdict(SubscriberWaits, 0.8,
				fmt.Sprintf("apply worker waited on I/O or locks in %s of probes (%s)", pct(ap.TypeShare(waitTypeIO, waitTypeLock, waitTypeLWLock)), topEvents(ap, 3)))
			return finish(v, in)
		}
	}
	// The publisher's stages: the subscriber is waiting for data (or unseen).
	feeding := fmt.Sprintf("apply worker waiting for data (%s) in %s of probes", evApplyMain, pct(waitData))
	if !in.HasSubscriber {
		feeding = "no subscriber observed: judged from the publisher side only"
	}
	if in.HasSubscriber && waitData < 0.3 {
		v = newVerdict(Inconclusive, 0.4, walsenderLine(ws), applyLine(ap))
		v.Cause = "neither side stands out: the apply worker is neither saturated nor waiting for data"
		return finish(v, in)
	}
	ioShare := ws.TypeShare(waitTypeIO)
	switch {
	case in.ProcPub && ws.RunqueueShare >= StarvedRunq:
		v = newVerdict(WalsenderStarved, 0.9,
			fmt.Sprintf("walsender waited on the run queue %s of the time and ran only %s of one core", pct(ws.RunqueueShare), pct(ws.CPUShare)),
			fmt.Sprintf("its wait events (%s) are stale while it waits for a CPU: run-queue delay shows starvation", topEvents(ws, 2)),
			hostLine("publisher", s.PubHostBusy), feeding)
	case in.ProcPub && ws.CPUShare >= BusyCPU:
		v = newVerdict(WalsenderDecodeCPU, 0.9,
			fmt.Sprintf("walsender CPU %s of one core, run queue %s", pct(ws.CPUShare), pct(ws.RunqueueShare)), feeding)
	case ioShare >= 0.4:
		v = newVerdict(WalsenderReadIO, 0.75,
			fmt.Sprintf("walsender waited on I/O in %s of probes (%s)", pct(ioShare), topEvents(ws, 3)), feeding)
		if ws.Share(evReorderRead, evReorderWrite) > ws.Share(evWALRead) {
			v.Caveats = append(v.Caveats, "most I/O is spill files (ReorderBuffer): raise logical_decoding_work_mem or use streaming")
		}
	case ws.Share(evWriteData) >= MostProbes && in.ProcPub && ws.CPUShare < 0.5:
		// Not starved (checked above: run queue under StarvedRunq) and not busy.
		v = newVerdict(Network, 0.9,
			fmt.Sprintf("walsender waited for the socket (%s) in %s of probes", evWriteData, pct(ws.Share(evWriteData))),
			fmt.Sprintf("walsender CPU %s, run queue %s: it is neither busy nor starved", pct(ws.CPUShare), pct(ws.RunqueueShare)), feeding)
	case ws.Share(evWriteData) >= MostProbes && !in.ProcPub:
		v = newVerdict(Network, 0.5,
			fmt.Sprintf("walsender waited for the socket (%s) in %s of probes", evWriteData, pct(ws.Share(evWriteData))), feeding)
		v.Caveats = append(v.Caveats, "no /proc figures for the publisher: a CPU-starved walsender shows the same stale wait event")
	case !in.ProcPub && ws.Share(measure.CPUEvent) >= 0.8:
		v = newVerdict(WalsenderDecodeCPU, 0.5,
			fmt.Sprintf("walsender had no wait event in %s of probes", pct(ws.Share(measure.CPUEvent))), feeding)
		v.Caveats = append(v.Caveats, "no /proc figures for the publisher: a CPU-starved walsender would look the same")
	default:
		v = newVerdict(Inconclusive, 0.4, walsenderLine(ws), applyLine(ap))
		v.Cause = "the subscriber waits for data but no publisher-side limit stands out"
	}
	return finish(v, in)
}

// stallCause says why nothing moves, or "" when the path is alive.
func stallCause(in Input) string {
	switch {
	case !in.SlotFound:
		return "the slot does not exist"
	case in.WALStatus == "lost":
		return "the slot is lost (wal_status = lost): WAL it needed was removed; recreate the subscription's slot and resynchronise"
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
	case in.Summary.Progress() <= 0 && in.Summary.Generated > 0 && in.MedianLag > CaughtUpLag:
		return "neither the walsender (sent_lsn) nor the slot (confirmed_flush_lsn) advanced during the window"
	}
	return ""
}

func newVerdict(name string, conf float64, evidence ...string) Verdict {
	a := adviceFor[name]
	v := Verdict{Name: name, Confidence: conf, Headline: a.headline, Helps: a.helps, NotHelps: a.not}
	for _, e := range evidence {
		if e != "" {
			v.Evidence = append(v.Evidence, e)
		}
	}
	return v
}

// finish adds the common evidence and lowers the confidence for what could
// not be seen.
func finish(v Verdict, in Input) Verdict {
	s := in.Summary
	v.Evidence = append(v.Evidence, fmt.Sprintf("generated %.1f MB/s, decoded %.1f MB/s, confirmed %.1f MB/s over %.0f s (%d ticks)", mb(s.Generated), mb(s.Decoded), mb(s.Consumed), s.WindowS, s.Ticks))
	if !in.ProcPub || (in.HasSubscriber && !in.ProcSub) {
		v.Caveats = append(v.Caveats, "process CPU and run-queue figures were not available for every side (remote host or --no-proc)")
		v.Confidence *= 0.8
	}
	if in.Gaps > 0 {
		v.Caveats = append(v.Caveats, fmt.Sprintf("%d sampling gap(s): a server restarted or a connection dropped", in.Gaps))
		v.Confidence *= 0.85
	}
	if n := s.Walsender.Probes + s.Apply.Probes; n < 100 && v.Name != CaughtUp {
		v.Confidence *= 0.7 + 0.3*float64(n)/100
	}
	if in.SpillBytes > 0 {
		v.Evidence = append(v.Evidence, fmt.Sprintf("the walsender spilled %s to disk during the window (logical_decoding_work_mem too small for the transactions)", size(in.SpillBytes)))
	}
	v.Confidence = math.Round(v.Confidence*100) / 100
	return v
}

func walsenderLine(p measure.Proc) string {
	return fmt.Sprintf("walsender CPU %s, run queue %s, waits: %s", pct(p.CPUShare), pct(p.RunqueueShare), topEvents(p, 2))
}

func applyLine(p measure.Proc) string {
	return fmt.Sprintf("apply worker CPU %s, run queue %s, waits: %s", pct(p.CPUShare), pct(p.RunqueueShare), topEvents(p, 2))
}

func hostLine(side string, busy float64) string {
	if busy < 0 {
		return ""
	}
	return fmt.Sprintf("%s host CPU busy %s", side, pct(busy))
}

func topEvents(p measure.Proc, n int) string {
	type kv struct {
		k string
		v float64
	}
	var all []kv
	for k, v := range p.WaitShares {
		all = append(all, kv{k, v})
	}
	for i := range all {
		for j := i + 1; j < len(all); j++ {
			if all[j].v > all[i].v || (all[j].v == all[i].v && all[j].k < all[i].k) {
				all[i], all[j] = all[j], all[i]
			}
		}
	}
	out := ""
	for i, x := range all {
		if i == n {
			break
		}
		if out != "" {
			out += ", "
		}
		out += fmt.Sprintf("%s %s", x.k, pct(x.v))
	}
	if out == "" {
		return "none probed"
	}
	return out
}

func pct(v float64) string {
	if v < 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f%%", 100*v)
}

func mb(bps float64) float64 { return bps / 1e6 }

func size(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MB", float64(n)/1e6)
	default:
		return fmt.Sprintf("%.0f kB", float64(n)/1e3)
	}
}
