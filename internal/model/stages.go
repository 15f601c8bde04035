package model

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/topology"
)

// Stage names of a replication path, in pipeline order. A stage run by a
// process is named after the process's role.
const (
	StageWalsender = StageName(sample.RoleWalsender) // reads and decodes WAL, sends it
	StageLink      = StageName("link")               // the network (or proxy, VPN) between the servers
	StageApply     = StageName(sample.RoleApply)     // the subscriber's leader apply worker and its resources
	// StageParallel is the busiest parallel apply worker (16+, streaming =
	// parallel), which applies large transactions the leader hands it.
	StageParallel = StageName(sample.RoleParallel)
)

// StageName names a stage of a replication path: the one type of stage
// names, whose constants are listed above. A stage is found by its name
// (Stages.Of), never by its place in a path's stages.
type StageName string

// Stage is what one stage of the path did over the window. Shares are of
// one core (CPU, run queue) or of wait-event probes (the rest), 0..1; -1
// means unknown. A stage's time splits into work (Busy: on a CPU or waiting
// for one), waits on its own resources (Own), waits on the stage after it
// (Blocked) and waits for the stage before it (Starved).
type Stage struct {
	Name StageName `json:"stage"`
	// CPU and Runq come from /proc (-1 without it); Busy is their sum or,
	// without /proc, the share of probes with no wait event.
	CPU  float64 `json:"cpu_share" jsonschema:"nullable"`
	Runq float64 `json:"runqueue_share" jsonschema:"nullable"`
	Busy float64 `json:"busy_share" jsonschema:"nullable"`
	// Blocked is the share of probes waiting on the downstream stage
	// (WalSenderWriteData; LogicalApplySendData for a leader feeding a
	// parallel worker), corrected for stale events: a process that waits for
	// a CPU keeps showing its last wait event, so Blocked never exceeds the
	// time /proc leaves outside Busy and Own.
	Blocked float64 `json:"blocked_share" jsonschema:"nullable"`
	// Starved is the share of probes waiting for the upstream stage
	// (WalSenderWaitForWAL, LogicalApplyMain).
	Starved float64 `json:"starved_share" jsonschema:"nullable"`
	// Own is the share of probes waiting on the stage's own resources (IO,
	// Lock, LWLock, IPC, SyncRep, ...); OwnTop names the top ones.
	Own    float64 `json:"own_wait_share" jsonschema:"nullable"`
	OwnTop string  `json:"own_waits,omitempty"`
	// Utilisation is Busy + Own: the share of the window the stage spent on
	// its own work. At about 1 the stage is saturated; -1 when unknown (the
	// link, whose capacity lagscope does not measure).
	Utilisation float64 `json:"utilisation" jsonschema:"nullable"`
	// Headroom is how much faster the path could run before this stage
	// saturates (1 / Work, or an idle apply worker's capacity from the WAL
	// it writes: IdleApplyCapacity); 0 when unknown or when this is the
	// limit.
	Headroom float64 `json:"headroom,omitempty"`
	// Probes is the number of wait-event observations behind the shares.
	Probes int `json:"probes" jsonschema:"nullable"`
	// Role says what the stage is in this window: "limit", "next" or "".
	Role string `json:"role,omitempty"`
	// PID and Workers, for parallel apply: the busiest worker measured and
	// how many there were.
	PID     int `json:"pid,omitempty"`
	Workers int `json:"workers,omitempty"`
}

// Stages are a path's stages in pipeline order (walsender, link, apply
// and, when parallel apply workers ran, the busiest of them); a stage is
// found by its name, never by its place.
type Stages []Stage

// Of is the stage named name, or an unknown stage of that name (not
// measured) when the path has none.
func (st Stages) Of(name StageName) Stage {
	if s, ok := st.Find(name); ok {
		return s
	}
	return unknownStage(name)
}

// Find is the stage named name, and whether the path has it.
func (st Stages) Find(name StageName) (Stage, bool) {
	for _, s := range st {
		if s.Name == name {
			return s, true
		}
	}
	return Stage{}, false
}

// with is st with the stage of s's name replaced by s (st unchanged when
// it has none).
func (st Stages) with(s Stage) Stages {
	out := slices.Clone(st)
	for i := range out {
		if out[i].Name == s.Name {
			out[i] = s
		}
	}
	return out
}

// unknownStage is a stage lagscope did not measure (the link, or the
// apply side without a subscriber).
func unknownStage(name StageName) Stage {
	return Stage{Name: name, CPU: -1, Runq: -1, Busy: -1, Utilisation: -1}
}

// Known reports whether the stage was measured at all.
func (s Stage) Known() bool { return s.Utilisation >= 0 }

// IdleWork is the utilisation under which a stage's run-queue wait is left
// out of what it would need at saturation (Work): a process that sleeps
// most of the window waits to be scheduled at each of its hundreds of
// wakes a second (2-4% of the window for an apply worker fed 2 MB/s on the
// lab's VM), and a process kept busy does not wake. Measured: the apply
// worker's capacity taken from such a window with its run-queue wait in
// was 1.27-1.83x too low in 11 lab runs on 15.18 and 16.14 (docs/whatif.md,
// unstarve-walsender).
const IdleWork = 0.5

// Work is the share of the window the stage's work for today's drain
// would take it once it runs back to back: its utilisation, less its
// run-queue wait when it idled most of the window and was not starved of a
// CPU (StarvedRunq: then the wait is other work sharing its core).
func (s Stage) Work() float64 {
	if s.Utilisation < IdleWork && s.Runq > 0 && s.Runq < StarvedRunq && s.Utilisation-s.Runq > 0 {
		return s.Utilisation - s.Runq
	}
	return s.Utilisation
}

// headroomIn is the factor on today's drain at which s saturates (1 /
// Work, or Calibration.IdleApplyCapacity's), and whether the calibrated cost gave it.
func headroomIn(s Stage, in Input) (float64, bool) {
	d := in.Summary.Progress()
	if c := in.calibration().IdleApplyCapacity(s, d, in.SubWALPerSent); c > 0 {
		return c / d, true
	}
	return 1 / s.Work(), false
}

// Upstream and downstream wait events per stage (compared without regard to
// case: PostgreSQL 17 renamed several by case only).
var (
	walsenderBlocked = []string{evWriteData, evWalSenderMain}
	walsenderStarved = []string{evWaitForWAL}
	// The leader waits on its parallel workers: to send them data, for
	// their state change, or on the applytransaction lock until one
	// finishes a transaction.
	applyBlocked = []string{evApplySendData, "LogicalParallelApplyStateChange", "applytransaction"}
	// A parallel worker waits for the leader idle, or on the
	// applytransaction lock until the leader streams the rest of a
	// transaction.
	parallelStarved = []string{"LogicalParallelApplyMain", "applytransaction"}
	applyStarved    = []string{evApplyMain}
	// idleEvents are neither work nor a resource: the process sleeps between
	// messages (a walsender's main loop, a parallel worker between chunks).
	idleEvents = []string{"LogicalSyncStateChange"}
)

// procStage turns one role's measurement into a stage.
func procStage(name StageName, p measure.Proc, withProc bool, blockedEv, starvedEv []string) Stage {
	s := Stage{Name: name, CPU: -1, Runq: -1, Busy: -1, Utilisation: -1, Probes: p.Probes}
	if p.Probes == 0 && (!withProc || p.CPUShare < 0) {
		return s
	}
	s.Blocked = p.Share(blockedEv...)
	s.Starved = p.Share(starvedEv...)
	s.Own, s.OwnTop = ownWaits(p, append(append(append([]string{}, blockedEv...), starvedEv...), idleEvents...))
	if withProc && p.CPUShare >= 0 {
		s.CPU, s.Runq = p.CPUShare, max(p.RunqueueShare, 0)
		s.Busy = s.CPU + s.Runq
		// Waits /proc leaves no time for are stale too: a process
		// woken from an I/O or lock wait shows it until it runs.
		s.Own = min(s.Own, max(0, 1-s.Busy))
	} else {
		s.Busy = p.Share(measure.CPUEvent)
	}
	s.Utilisation = s.Busy + s.Own
	// Stale events: what /proc shows as work cannot also be waiting.
	if rest := 1 - s.Utilisation; s.Blocked+s.Starved > rest && s.Blocked+s.Starved > 0 {
		if rest < 0 {
			rest = 0
		}
		scale := rest / (s.Blocked + s.Starved)
		s.Blocked *= scale
		s.Starved *= scale
	}
	return s
}

// ownWaits sums the probes in wait events other than CPU and those listed,
// and names the top three.
func ownWaits(p measure.Proc, not []string) (float64, string) {
	total := 0.0
	var top []string
	for _, e := range measure.Ranked(p.WaitShares) {
		if e.Event == measure.CPUEvent || containsFold(not, e.Event) {
			continue
		}
		total += e.Share
		if len(top) < 3 && e.Share >= 0.01 {
			top = append(top, fmt.Sprintf("%s %s", e.Event, pct(e.Share)))
		}
	}
	return total, strings.Join(top, ", ")
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// stages builds the path's stages from the input: walsender, link, apply
// (the apply stage is unknown without a subscriber).
func stages(in Input) Stages {
	s := in.Summary
	ws := procStage(StageWalsender, s.Walsender, in.ProcOf(topology.Publisher), walsenderBlocked, walsenderStarved)
	if !in.HasSubscriber {
		return Stages{ws, unknownStage(StageLink), unknownStage(StageApply)}
	}
	out := Stages{ws, unknownStage(StageLink), procStage(StageApply, s.Apply, in.ProcOf(topology.Subscriber), applyBlocked, applyStarved)}
	if len(s.Parallel) > 0 {
		par := procStage(StageParallel, s.Parallel[0], in.ProcOf(topology.Subscriber), nil, parallelStarved)
		par.PID = s.Parallel[0].PID
		par.Workers = len(s.Parallel)
		out = append(out, par)
	}
	return out
}
