package model

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/measure"
)

// Without /proc (a managed service, a container, another host), the CPU a
// server's processes get is measured from inside it: lagscope's session
// runs a burst of fixed work and times it (measure.Contention). On the lab's
// runs on 15, 16 and 18 (docs/no-proc.md) a publisher whose walsender was
// starved by 16 pgbench clients stretched the burst 11.2-27.6x, while idle
// or link-limited publishers, and ones whose only busy process was the
// walsender itself (decode-bound: 2.3-3.9x), stayed at or under 3.9x.
// Processes that never sleep (a CPU-bound query) stretch the burst far less
// than waking ones: 2 such sessions beside the apply worker measured
// 3.5-5.0x, little more than the apply worker alone (2.7-3.3x), so a verdict
// resting on the burst never goes above noProcCap.
const (
	// StretchFree is the stretch under which a server's CPUs count as
	// having room: 1.3x the highest stretch of a publisher whose walsender
	// was not starved.
	StretchFree = 5.0
	// StretchSaturated is the stretch from which a server's CPUs count as
	// saturated by other work: under two thirds of the lowest stretch of
	// a starved walsender's publisher. In between, the verdict is
	// inconclusive and names the missing figure.
	StretchSaturated = 7.0
	// LateHeld is the median wake-up lateness of lagscope's own session,
	// in ms, from which a server's sessions count as held back: under a
	// cgroup CPU limit of 0.3 CPU (the lab's cpu-quota scenario on 15, 16
	// and 18) it woke 21.0-26.1 ms late at the median over 6 recordings,
	// waiting for the next quota period, while the burst's median stretch
	// ranged 3.1-11.4x; in every other lab state the median stayed at or
	// under 2.4 ms (a starved walsender's publisher).
	LateHeld = 8.0
	// noProcCap caps the confidence of a verdict that rests on the burst in
	// place of /proc; finish's x0.8 for the missing figures brings it to
	// 0.6 at most.
	noProcCap = 0.75
	// StretchShared is the stretch from which a CPU-bound apply worker's
	// CPUs count as shared with other work: an apply worker alone on the
	// subscriber's CPU stretched the burst 2.1-3.5x (apply-bound,
	// full-identity, trigger-cpu, parallel-apply on 15, 16 and 18), one
	// beside 2 CPU-bound sessions 3.5-5.0x (subscriber-starved); processes
	// outside PostgreSQL are not seen in pg_stat_activity, so the burst is
	// all there is to tell them by.
	StretchShared = 3.4
	// ActiveShared is the mean number of the subscriber's client backends
	// running a statement at a tick from which its CPUs count as shared
	// (a CPU-bound session runs all the time: 1.0).
	ActiveShared = 0.5
	// capSharedNoProc caps a CPU-bound apply worker's verdict without /proc
	// when its CPUs look shared (StretchShared, ActiveShared): finish's
	// missingProcFactor brings it under 0.5. Starved and busy are not told
	// apart there without the run queue.
	capSharedNoProc = 0.62
	// ActiveCrowd is the mean number of the publisher's client backends
	// running a statement at a tick from which, without /proc, a
	// walsender showing a stale WalSenderWriteData counts as starved even
	// where the burst found room (capCrowdNoProc). In 10 runs of the lab's
	// walsender-starved --no-proc on 15.18 (16 pgbench clients) 1.5-6.2
	// backends were active on average, 4 or more in 3: the rule covers a
	// burst that misses the starvation only in those; the burst itself
	// (10.7-28.7x) named all 10.
	ActiveCrowd = 4.0
	// capCrowdNoProc caps that verdict: the burst disagrees with it.
	capCrowdNoProc = 0.62
	// CostStarved is the apply worker's busy time per byte of WAL the
	// subscriber wrote, over the calibrated ApplyCostPerWAL, from which
	// without /proc its CPUs count as shared: the in-server estimate of
	// the CPU its work takes is that much under the time it spent busy.
	// On the lab's VM a CPU-bound apply worker alone took 0.99-1.03x
	// (full-identity-index, conflict-missing on 16 and 18), one beside 2
	// busy loops outside PostgreSQL 1.46x (os-hog-subscriber on 15, the
	// loops at 23% of a core each), a row trigger's work 23x.
	CostStarved = 1.25
)

// applyCostRatio is the apply stage's busy time per byte of WAL the
// subscriber wrote over the calibrated ApplyCostPerWAL (0 when either is
// unknown: an older recording, the subscriber's WAL not read).
func (in Input) applyCostRatio(ap Stage) float64 {
	k := ApplyCostOf(ap, in.Summary.Progress(), in.SubWALPerSent)
	if k <= 0 {
		return 0
	}
	return k / in.calibration().ApplyCostPerWAL
}

// activeBackends is the mean number of a server's client backends that ran
// a statement at a tick (0 when not read).
func activeBackends(load *measure.Competing) float64 {
	active := 0.0
	if load != nil {
		for _, b := range load.Backends {
			active += b.Active
		}
	}
	return active
}

// sharedNoProc says, without /proc, why a CPU-bound apply worker's CPUs
// look shared with other work ("" when they do not): the burst stretched
// more than the apply worker alone stretches it, or client backends ran
// statements beside it.
func sharedNoProc(c measure.Contention, load *measure.Competing, costRatio float64) string {
	active := activeBackends(load)
	switch {
	case costRatio >= CostStarved:
		return fmt.Sprintf("the apply worker, on a CPU or waiting for one, took %.1fx the lab's time per MB of WAL it writes (its busy share over its drain): it may be starved by processes outside PostgreSQL, which pg_stat_activity does not show, or do per-row work beyond its writes", costRatio)
	case c.Known() && c.Stretch >= StretchShared:
		return fmt.Sprintf("the subscriber's burst took %.1fx its bare time, more than an apply worker alone on its CPU stretches it (under %.1fx): other work, inside PostgreSQL or outside it, may share its CPUs and it may be starved rather than busy", c.Stretch, StretchShared)
	case active >= ActiveShared:
		return fmt.Sprintf("%.1f of the subscriber's client backends ran a statement at a tick on average: they may share the apply worker's CPUs, and it may be starved rather than busy", active)
	}
	return ""
}

// cpuRoom is what the burst says of a server's CPUs.
type cpuRoom int

const (
	roomUnknown   cpuRoom = iota // no bursts (an older recording)
	roomFree                     // stretch under StretchFree
	roomPartly                   // between the two thresholds
	roomSaturated                // stretch at least StretchSaturated
)

func roomOf(c measure.Contention) cpuRoom {
	switch {
	case heldBack(c):
		return roomSaturated
	case !c.Known():
		return roomUnknown
	case c.Stretch >= StretchSaturated:
		return roomSaturated
	case c.Stretch < StretchFree:
		return roomFree
	}
	return roomPartly
}

// heldBack reports whether lagscope's own session woke LateHeld or more
// late at the median: what a cgroup CPU limit does to every process under
// it, whatever the burst's stretch.
func heldBack(c measure.Contention) bool {
	return c.LateProbes >= MinProbes && c.LateMedianMS >= LateHeld
}

// roomMargin is the distance of the stretch from the threshold that
// decided its room, in share points of the CPU a busy process would get
// (1/stretch), so that confidence() weighs it like the other margins.
func roomMargin(c measure.Contention) float64 {
	switch {
	case heldBack(c):
		return (c.LateMedianMS - LateHeld) / LateHeld * marginScale
	case roomOf(c) == roomSaturated:
		return 1/StretchSaturated - 1/c.Stretch
	case roomOf(c) == roomFree:
		return 1/c.Stretch - 1/StretchFree
	}
	return 0
}

// missingRunq names the figure a verdict without /proc lacks and how to get it.
func missingRunq(side, noun string) string {
	return fmt.Sprintf("no /proc figures for the %s: the %s's run-queue delay was not measured; run lagscope diagnose on the %s's host (or read field 2 of /proc/<pid>/schedstat there twice) to measure it", side, noun, side)
}

// linkOrStarvedNoProc settles, without the publisher's /proc, a walsender
// blocked on the socket: the link, or a walsender starved of CPU whose
// WalSenderWriteData is stale, by the publisher's burst. ok is false when
// the burst is unknown (the caller keeps its capped network verdict).
func linkOrStarvedNoProc(in Input, ws, ap Stage, network Verdict) (Verdict, bool) {
	c := in.Summary.PubCPU
	switch roomOf(c) {
	case roomSaturated:
		v := newStageVerdict(StageWalsender, ResourceRunQueue, confidence(margin{"publisher burst room", roomMargin(c)}, margin{"walsender blocked or busy over MostlyBusy", ws.Blocked + ws.Busy - MostlyBusy}).capped(noProcCap))
		v.d.basis = basisLink
		v.Caveats = append(v.Caveats, missingRunq("publisher", "walsender"))
		return heldBackNoProc(v, "publisher", "walsender", c), true
	case roomPartly, roomFree:
		if crowd := activeBackends(in.Summary.PubLoad); crowd >= ActiveCrowd {
			// The burst found room, but the publisher ran more statements
			// at once than a small server has CPUs: on the lab's
			// walsender-starved the burst took 1.0x its bare time in 1 of 3
			// runs while /proc showed the walsender 79% in the run queue.
			v := newStageVerdict(StageWalsender, ResourceRunQueue, confidence(margin{"walsender blocked or busy over MostlyBusy", ws.Blocked + ws.Busy - MostlyBusy}).capped(capCrowdNoProc))
			v.d.basis = basisLink
			v.Caveats = append(v.Caveats, fmt.Sprintf("the publisher's burst took %.1fx its bare time (room), but %.1f of its client backends ran a statement at a tick on average (from %.0f the walsender's stale %s is taken for a wait on a CPU): a slow link beside a busy publisher with many cores looks alike. ", c.Stretch, crowd, ActiveCrowd, evWriteData)+missingRunq("publisher", "walsender"))
			return v, true
		}
	}
	switch roomOf(c) {
	case roomPartly:
		v := newVerdict(Inconclusive, fixed(confNoStage))
		v.d.basis = basisLink
		v.d.cause = "the walsender is blocked on the socket, or starved of CPU and showing a stale wait event: the publisher's CPUs are busy but not clearly saturated, and without /proc the two look alike. " + missingRunq("publisher", "walsender")
		return v, true
	case roomFree:
		network.setScore(score{network.Confidence, network.Decided}.lower(confidence(margin{"publisher burst room", roomMargin(c)})).capped(noProcCap))
		network.Caveats = append(network.Caveats, "no /proc figures for the publisher: its CPUs were judged from inside the server (a burst of fixed work), not the walsender's own run queue")
		return network, true
	}
	return Verdict{}, false
}

// cpuBoundNoProc says what fills the time of a stage that probes show
// mostly on CPU (no wait event) without /proc: the CPU (it is CPU-bound
// itself), or the run queue (starved by other work on the server's CPUs),
// by the server's burst. A process saturating one CPU
// stretches the burst itself (about 2x on a server with one CPU), which
// stays under StretchSaturated. Without bursts (an older recording) the
// confidence is conf*unknown.
func cpuBoundNoProc(c measure.Contention, side string, conf score, unknown float64) (string, score) {
	room := confidence(margin{side + " burst room", roomMargin(c)})
	switch roomOf(c) {
	case roomSaturated:
		return ResourceRunQueue, conf.lower(room).capped(noProcCap)
	case roomFree:
		return ResourceCPU, conf.lower(room).capped(noProcCap)
	case roomPartly:
		return ResourceCPU, conf.capped(capRoomPartly)
	}
	return ResourceCPU, conf.scaled(unknown)
}

// starvedStageNoProc redraws a walsender stage named starved without /proc:
// its WalSenderWriteData was stale (it waited for a CPU, not on the socket),
// so that time is work, and the run-queue share is the one the publisher's
// burst implies for a process that wants a CPU all the time (1 - 1/stretch).
func starvedStageNoProc(s Stage, c measure.Contention) Stage {
	s.Busy += s.Blocked
	s.Blocked = 0
	s.Runq = c.RunqEstimate()
	s.Utilisation = s.Busy + s.Own
	return s
}

// heldBackNoProc says of a starved verdict made without /proc whether the
// wake-up lateness (heldBack) points to a CPU limit on the server's cgroup
// (FillHeldBack), which only the host can confirm.
func heldBackNoProc(v Verdict, side, noun string, c measure.Contention) Verdict {
	if !heldBack(c) || v.d.resource != ResourceRunQueue {
		return v
	}
	v.d.fill, v.d.side, v.d.noun, v.d.lateMS = FillHeldBack, side, noun, c.LateMedianMS
	return v
}
