package model

import (
	"fmt"
	"slices"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/topology"
)

// physicalRule is one row of the physical decision's ordered table, as
// rule is of the logical one: the first whose match holds decides.
type physicalRule struct {
	ID       string
	Verdicts []VerdictName
	When     string
	match    func(in PhysicalInput, st Stages) (Verdict, bool)
}

// physStageVerdicts are the verdicts of a physical path's limiting stage.
var physStageVerdicts = append(namesOf(StageReceiver, StageReplay), WalsenderStarved, WalsenderReadIO)

// physicalRules is the physical decision's precedence: what the standby is
// told to do (paused), a standby that receives nothing, what holds replay
// on purpose or by a query, then the stage model, the synchronous standby,
// caught up, the link.
var physicalRules = []physicalRule{
	{ID: "phys-paused", Verdicts: []VerdictName{ReplayPaused},
		When:  "the standby's replay is paused (pg_get_wal_replay_pause_state() at the window's end), or the startup process waits in RecoveryPause in most probes",
		match: matchPaused},
	{ID: "phys-no-receiver", Verdicts: []VerdictName{Stalled},
		When:  "the standby runs no streaming WAL receiver and receives nothing while its startup process waits for WAL",
		match: matchNoReceiver},
	{ID: "phys-conflict", Verdicts: []VerdictName{ReplayConflict},
		When:  "the startup process waits on a recovery conflict (a standby query's snapshot, lock, tablespace or buffer pin) in most probes",
		match: matchConflict},
	{ID: "phys-delayed", Verdicts: []VerdictName{ReplayDelayed},
		When:  "the startup process waits out recovery_min_apply_delay (RecoveryApplyDelay) in most probes, or in at least Idle of them with the delay set",
		match: matchDelayed},
	{ID: "phys-saturated", Verdicts: physStageVerdicts,
		When: "a stage works all the time (utilisation at least Saturated) without waiting for its upstream: the busiest of the walsender, the WAL receiver and the startup process is the limit",
		match: func(in PhysicalInput, st Stages) (Verdict, bool) {
			return physLimit(in, st, Saturated)
		}},
	{ID: "phys-sync-wait", Verdicts: []VerdictName{SyncStandbyWait},
		When:  "the standby is synchronous (sync_state sync or quorum) and the primary's backends wait on SyncRep in at least SyncWaitShare of its probes",
		match: matchSyncWait},
	{ID: "phys-caught-up", Verdicts: []VerdictName{CaughtUp},
		When:  "everything the primary wrote is replayed, or what is left (under CaughtUpLag) replays within CaughtUpTime, whatever pg_last_xact_replay_timestamp() says",
		match: matchPhysCaughtUp},
	{ID: "phys-link", Verdicts: []VerdictName{Network, WalsenderStarved},
		When:  "WAL waits to be sent or is in flight while the walsender is not busy and the standby's WAL receiver and startup process wait for WAL: the link, or without /proc a primary whose CPUs are saturated",
		match: matchPhysLink},
	{ID: "phys-mostly-busy", Verdicts: physStageVerdicts,
		When: "a stage works most of the window (at least MostlyBusy) with WAL waiting at it, without waiting for its upstream",
		match: func(in PhysicalInput, st Stages) (Verdict, bool) {
			return physLimit(in, st, MostlyBusy)
		}},
	{ID: "phys-no-stage", Verdicts: []VerdictName{Inconclusive},
		When: "otherwise: no stage stands out",
		match: func(in PhysicalInput, st Stages) (Verdict, bool) {
			v := newVerdict(Inconclusive, fixed(confNoStage))
			v.d.cause = "no stage of the physical path stands out: the walsender, the WAL receiver and the startup process each work part of the window"
			return v, true
		}},
}

// pausedStates are pg_get_wal_replay_pause_state()'s values of a paused
// replay.
var pausedStates = []string{"paused", "pause requested"}

func matchPaused(in PhysicalInput, _ Stages) (Verdict, bool) {
	p := in.Path
	if p.Last != nil && slices.Contains(pausedStates, p.Last.PauseState) {
		v := newVerdict(ReplayPaused, fixed(confFact))
		v.Limit, v.d.fill = StageReplay, p.Last.PauseState
		return v, true
	}
	if sh := p.Replay[measure.ReplayPausedWait]; sh >= MostProbes {
		v := newVerdict(ReplayPaused, confidence(margin{"startup process in RecoveryPause >= MostProbes", sh - MostProbes}))
		v.Limit = StageReplay
		return v, true
	}
	return Verdict{}, false
}

func matchNoReceiver(in PhysicalInput, _ Stages) (Verdict, bool) {
	p := in.Path
	if p.Last == nil || p.Received >= StillRate || p.Replay[measure.ReplayWaitingForWAL] < MostProbes {
		return Verdict{}, false
	}
	if r := p.Last.Receiver; r != nil && r.Status == "streaming" {
		return Verdict{}, false
	}
	v := newVerdict(Stalled, fixed(confFact))
	status := "none runs"
	if r := p.Last.Receiver; r != nil {
		status = fmt.Sprintf("its status is %q", r.Status)
	}
	v.d.cause = "the standby receives nothing: no WAL receiver streams (" + status + "); check primary_conninfo, the primary's reachability and its max_wal_senders, and the standby's log"
	return v, true
}

func matchConflict(in PhysicalInput, _ Stages) (Verdict, bool) {
	p := in.Path
	sh := p.ConflictShare()
	if sh < MostProbes {
		return Verdict{}, false
	}
	v := newVerdict(ReplayConflict, confidence(margin{"startup process waiting on recovery conflicts >= MostProbes", sh - MostProbes}))
	v.Limit = StageReplay
	top := ""
	for _, c := range measure.ReplayConflictClasses {
		if top == "" || p.Replay[c] > p.Replay[top] {
			top = c
		}
	}
	v.d.fill, v.d.fillShare = top, sh
	return v, true
}

func matchDelayed(in PhysicalInput, _ Stages) (Verdict, bool) {
	p := in.Path
	sh := p.Replay[measure.ReplayDelayWait]
	set := p.Last != nil && p.Last.Settings.MinApplyDelayMS > 0
	switch {
	case sh >= MostProbes:
		v := newVerdict(ReplayDelayed, confidence(margin{"startup process in RecoveryApplyDelay >= MostProbes", sh - MostProbes}))
		v.Limit = StageReplay
		return v, true
	case set && sh >= Idle:
		v := newVerdict(ReplayDelayed, confidence(margin{"startup process in RecoveryApplyDelay >= Idle with recovery_min_apply_delay set", sh - Idle}))
		v.Limit = StageReplay
		return v, true
	}
	return Verdict{}, false
}

// physLimit names the busiest stage of st that works at least threshold
// of the window without waiting for its upstream (under Idle); below
// Saturated, only a stage with WAL waiting at it (IdleLag or more).
func physLimit(in PhysicalInput, st Stages, threshold float64) (Verdict, bool) {
	p := in.Path
	backlog := map[StageName]int64{StageWalsender: p.Unsent, StageReceiver: p.InFlight, StageReplay: p.Unreplayed}
	var best Stage
	found := false
	for _, name := range []StageName{StageReplay, StageReceiver, StageWalsender} {
		s := st.Of(name)
		if !s.Known() || s.Utilisation < threshold || s.Starved >= Idle {
			continue
		}
		if threshold < Saturated && backlog[name] < IdleLag {
			continue
		}
		if !found || s.Utilisation > best.Utilisation {
			best, found = s, true
		}
	}
	if !found {
		return Verdict{}, false
	}
	sc := confidence(margin{fmt.Sprintf("%s utilisation >= %s", best.Name, ruleThreshold(threshold)), best.Utilisation - threshold},
		margin{fmt.Sprintf("%s waiting for its upstream < Idle", best.Name), Idle - best.Starved})
	res := physResource(in, best)
	name := stageVerdictName(best.Name, res)
	if best.Name == StageWalsender && res == ResourceCPU {
		// A physical walsender reads and sends WAL: it decodes nothing.
		name = Inconclusive
	}
	v := newVerdict(name, sc)
	v.Limit, v.d.resource, v.d.stage = best.Name, res, best
	if res == ResourceRunQueue && !in.ProcOf(nodeRoleOf(best.Name)) {
		v.Confidence = sc.capped(capRoomPartly).conf
	}
	if name == Inconclusive {
		v.d.cause = fmt.Sprintf("the %s is the limit (%s busy) on %s, which names no cause lagscope knows", best.Name, pct(best.Utilisation), res)
	}
	return v, true
}

// ruleThreshold names a threshold constant.
func ruleThreshold(t float64) string {
	if t == Saturated {
		return "Saturated"
	}
	return "MostlyBusy"
}

// nodeRoleOf is the role of the node a physical stage runs on.
func nodeRoleOf(s StageName) topology.Role {
	if s == StageWalsender {
		return topology.Primary
	}
	return topology.Standby
}

// physResource is what fills a busy physical stage's time: the run queue
// (StarvedRunq or more, /proc), reads (the startup process's data file and
// WAL reads, the walsender's WAL reads: more probes than on a CPU), the
// WAL receiver's own waits (its writes and flushes), else the CPU.
func physResource(in PhysicalInput, s Stage) string {
	p := in.Path
	if s.Runq >= StarvedRunq {
		return ResourceRunQueue
	}
	cpu := s.Busy
	if s.CPU >= 0 {
		cpu = s.CPU
	}
	switch s.Name {
	case StageReplay:
		// Reads against the CPU on one instrument, the probes: /proc's CPU
		// counts the reads' own kernel time too (a page copied from the
		// page cache, a dirty buffer written into it), so beside it the
		// reads looked smaller than they were (18.4, replay-read-io: reads
		// 46% of probes, on a CPU 38%, /proc 58%).
		if reads := p.Replay[measure.ReplayDataRead] + p.Replay[measure.ReplayWALRead]; reads > 0 && reads >= p.Replay[measure.ReplayOnCPU] {
			return ResourceIO
		}
		if s.Own > cpu {
			return ResourceOwnWaits
		}
	case StageReceiver:
		if s.Own >= cpu {
			return ResourceIO
		}
	case StageWalsender:
		if p.Walsender.Share(evWALRead) >= cpu {
			return ResourceIO
		}
		if s.Own > cpu {
			return ResourceOwnWaits
		}
	}
	return ResourceCPU
}

// syncStates are the sync_state values of a standby whose confirmation
// the primary's commits wait for.
var syncStates = []string{"sync", "quorum"}

func matchSyncWait(in PhysicalInput, _ Stages) (Verdict, bool) {
	p := in.Path
	if p.Sender == nil || !slices.Contains(syncStates, p.Sender.SyncState) || p.PrimaryProbes == 0 {
		return Verdict{}, false
	}
	sh := float64(p.SyncRepProbes) / float64(p.PrimaryProbes)
	if sh < SyncWaitShare {
		return Verdict{}, false
	}
	v := newVerdict(SyncStandbyWait, confidence(margin{"primary probes with a backend in SyncRep >= SyncWaitShare", sh - SyncWaitShare}))
	v.d.fillShare = sh
	return v, true
}

func matchPhysCaughtUp(in PhysicalInput, _ Stages) (Verdict, bool) {
	p := in.Path
	behind := p.Behind()
	switch {
	case behind < 0:
		return Verdict{}, false
	case behind <= IdleLag:
		return newVerdict(CaughtUp, confidence(margin{"WAL behind <= IdleLag", float64(IdleLag-behind) / IdleLag})), true
	case behind <= CaughtUpLag && p.Replayed >= StillRate && float64(behind)/p.Replayed <= CaughtUpTime:
		drain := float64(behind) / p.Replayed
		return newVerdict(CaughtUp, confidence(margin{"WAL behind <= CaughtUpLag", float64(CaughtUpLag-behind) / CaughtUpLag},
			margin{"replays within CaughtUpTime", (CaughtUpTime - drain) / CaughtUpTime})), true
	}
	return Verdict{}, false
}

func matchPhysLink(in PhysicalInput, st Stages) (Verdict, bool) {
	p := in.Path
	if !p.HasPrimary || p.Unsent < 0 {
		return Verdict{}, false
	}
	waiting := p.Unsent + max(p.InFlight, 0)
	ws := st.Of(StageWalsender)
	if waiting < IdleLag || !ws.Known() || ws.Utilisation >= MostlyBusy {
		return Verdict{}, false
	}
	ms := []margin{{"walsender utilisation < MostlyBusy", MostlyBusy - ws.Utilisation}}
	if p.HasStandby {
		rc, rp := st.Of(StageReceiver), st.Of(StageReplay)
		if rc.Starved < MostProbes || rp.Starved < MostProbes {
			return Verdict{}, false
		}
		ms = append(ms, margin{"WAL receiver waiting for data >= MostProbes", rc.Starved - MostProbes},
			margin{"startup process waiting for WAL >= MostProbes", rp.Starved - MostProbes})
	}
	sc := confidence(ms...)
	if !in.ProcOf(topology.Primary) {
		// A walsender starved of CPU shows its last wait event too: the
		// primary's burst tells them apart, as on a logical path.
		switch c := p.PrimaryCPU; {
		case c.Known() && c.RunqEstimate() >= StarvedRunq:
			v := newVerdict(WalsenderStarved, sc.capped(capRoomPartly))
			v.Limit, v.d.resource = StageWalsender, ResourceRunQueue
			return v, true
		case !c.Known():
			sc = sc.capped(capLinkNoBurst)
		}
	}
	v := newVerdict(Network, sc)
	v.Limit, v.d.resource = StageLink, ResourceSocket
	return v, true
}
