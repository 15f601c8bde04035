package model

import (
	"fmt"
	"sort"
	"strings"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/units"
)

// replayTimestampNote is the age of pg_last_xact_replay_timestamp() from
// which a caught-up standby's evidence says it is not the lag: past
// CaughtUpTime it reads as lag to anyone who trusts it.
const replayTimestampNote = CaughtUpTime

// physicalEvidence are the lines a physical verdict rests on: the WAL
// behind and the rates, each observed process's figures, then what the
// verdict names (the pause, the delay, the holder, the prefetcher, the
// synchronous standby), and the lag columns that mislead.
func physicalEvidence(in PhysicalInput, v Verdict) []Evidence {
	p := in.Path
	st := Stages(v.Stages)
	var ev []Evidence
	var parts []string
	for _, b := range []struct {
		n    int64
		what string
	}{{p.Unsent, "not yet sent"}, {p.InFlight, "sent not received"}, {p.Unreplayed, "received not replayed"}} {
		if b.n >= 0 {
			parts = append(parts, bytesText(b.n)+" "+b.what)
		}
	}
	if len(parts) > 0 {
		ev = append(ev, item(EvPhysicalBacklog, "behind: "+strings.Join(parts, ", "),
			Figures{"unsent_bytes": float64(p.Unsent), "in_flight_bytes": float64(p.InFlight), "unreplayed_bytes": float64(p.Unreplayed)}))
	}
	rates := []string{}
	for _, r := range []struct {
		key, what string
		v         float64
	}{{measure.PosGenerated, "generated", p.Generated}, {measure.PosSent, "sent", p.Sent}, {measure.PosReceived, "received", p.Received}, {measure.PosReplayed, "replayed", p.Replayed}} {
		if p.Known[r.key] {
			rates = append(rates, r.what+" "+units.FormatRate(r.v))
		}
	}
	if len(rates) > 0 {
		ev = append(ev, item(EvPhysicalRates, fmt.Sprintf("%s over %s", strings.Join(rates, ", "), secs(p.WindowS)),
			Figures{"generated_bytes_per_s": p.Generated, "sent_bytes_per_s": p.Sent, "received_bytes_per_s": p.Received, "replayed_bytes_per_s": p.Replayed}))
	}
	if p.HasStandby && p.Startup.Probes > 0 {
		ev = append(ev, replayWaitsItem(p))
	}
	if rp := st.Of(StageReplay); rp.CPU >= 0 {
		ev = append(ev, item(EvReplayCPU, fmt.Sprintf("startup process CPU %s of one core, run queue %s", pct(rp.CPU), pct(rp.Runq)),
			Figures{"cpu_share": rp.CPU, "runqueue_share": rp.Runq}))
	}
	if rc := st.Of(StageReceiver); rc.Known() && rc.Probes > 0 {
		own := ""
		if rc.OwnTop != "" {
			own = " (" + rc.OwnTop + ")"
		}
		ev = append(ev, item(EvReceiverWaits, fmt.Sprintf("WAL receiver waited for data in %s of probes, on its own writes and flushes %s%s", pct(rc.Starved), pct(rc.Own), own),
			Figures{"starved_share": rc.Starved, "own_wait_share": rc.Own}))
	}
	if ws := st.Of(StageWalsender); ws.Known() {
		ev = append(ev, item(EvPhysWalsender, fmt.Sprintf("walsender busy or on its own waits %s, blocked on the socket %s, waiting for WAL %s", pct(ws.Utilisation), pct(ws.Blocked), pct(ws.Starved)),
			Figures{"utilisation": ws.Utilisation, "blocked_share": ws.Blocked, "starved_share": ws.Starved}))
	}
	return append(ev, verdictEvidence(p, v)...)
}

// replayWaitsItem is the startup process's probes by class.
func replayWaitsItem(p measure.Physical) Evidence {
	names := map[string]string{measure.ReplayOnCPU: "on a CPU", measure.ReplayWaitingForWAL: "waiting for WAL", measure.ReplayDataRead: "reading data files",
		measure.ReplayWALRead: "reading WAL", measure.ReplayPausedWait: "paused", measure.ReplayDelayWait: "in the apply delay", measure.ReplayOtherWait: "other waits"}
	figs := Figures{"probes": float64(p.Startup.Probes), "conflict": p.ConflictShare()}
	var classes []string
	for k := range p.Replay {
		classes = append(classes, k)
	}
	sort.Slice(classes, func(i, j int) bool {
		return p.Replay[classes[i]] > p.Replay[classes[j]] || p.Replay[classes[i]] == p.Replay[classes[j]] && classes[i] < classes[j]
	})
	var parts []string
	for _, c := range classes {
		what, ok := names[c]
		if !ok {
			what = "a recovery conflict (" + strings.TrimPrefix(c, "conflict-") + ")"
		} else {
			figs[strings.ReplaceAll(c, "-", "_")] = p.Replay[c]
		}
		parts = append(parts, fmt.Sprintf("%s %s", what, pct(p.Replay[c])))
	}
	return item(EvReplayWaits, fmt.Sprintf("startup process (%d probes): %s", p.Startup.Probes, strings.Join(parts, ", ")), figs)
}

// verdictEvidence are the lines of what the verdict names, and the lag
// figures that mislead.
func verdictEvidence(p measure.Physical, v Verdict) []Evidence {
	var ev []Evidence
	last := p.Last
	if last != nil && last.PauseState != "" && last.PauseState != "not paused" {
		ev = append(ev, said(EvReplayPauseState, fmt.Sprintf("pg_get_wal_replay_pause_state(): %q", last.PauseState)))
	}
	if last != nil && last.Settings.MinApplyDelayMS > 0 {
		d := float64(last.Settings.MinApplyDelayMS) / 1000
		ev = append(ev, item(EvApplyDelaySetting, "recovery_min_apply_delay = "+secs(d), Figures{"delay_s": d}))
	}
	if v.Name == ReplayConflict {
		for i, h := range p.Holders {
			if i == 3 {
				break
			}
			figs := Figures{"pid": float64(h.PID), "held_s": p.HeldS}
			if last != nil {
				figs["max_delay_s"] = float64(last.Settings.MaxStreamingDelayMS) / 1000
			}
			ev = append(ev, item(EvConflictHolder, holderText(h)+"; "+cancelWhen(p), figs))
		}
	}
	if len(p.Conflicts) > 0 {
		var kinds []string
		total := int64(0)
		for k, n := range p.Conflicts {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
			total += n
		}
		sort.Strings(kinds)
		ev = append(ev, item(EvConflictsCancelled, "replay cancelled standby queries in the window (pg_stat_database_conflicts): "+strings.Join(kinds, ", "), Figures{"cancelled": float64(total)}))
	}
	if f := p.Prefetch; f != nil && (v.Name == ReplayReadIO || v.Name == ReplayCPU) {
		ev = append(ev, item(EvRecoveryPrefetch, fmt.Sprintf("recovery prefetcher in the window: %d blocks prefetched, %d already in memory, %d skipped for full-page images; %d prefetches in flight at the end", f.Prefetch, f.Hit, f.SkipFPW, f.IODepth),
			Figures{"prefetch": float64(f.Prefetch), "hit": float64(f.Hit), "skip_fpw": float64(f.SkipFPW), "io_depth": float64(f.IODepth)}))
	}
	if io := p.IO; io != nil && (v.Name == ReplayReadIO || v.Name == ReplayCPU) {
		s := fmt.Sprintf("startup process's reads in the window (pg_stat_io): %d blocks read, %d found in shared buffers", io.Reads, io.Hits)
		figs := Figures{"reads": float64(io.Reads), "hits": float64(io.Hits)}
		if io.ReadTimeMS != nil {
			s += fmt.Sprintf(", %s reading", secs(*io.ReadTimeMS/1000))
			figs["read_ms"] = *io.ReadTimeMS
		}
		ev = append(ev, item(EvStartupIO, s, figs))
	}
	if v.Name == SyncStandbyWait && p.Sender != nil && p.PrimaryProbes > 0 {
		sh := float64(p.SyncRepProbes) / float64(p.PrimaryProbes)
		ev = append(ev, item(EvSyncRepWaits, fmt.Sprintf("sync_state %s; a backend of the primary waited for it (SyncRep) in %s of the observations of its active backends", p.Sender.SyncState, pct(sh)), Figures{"probe_share": sh}))
	}
	if lag, ok := v.LagTime.Seconds.Get(); ok && lag == 0 && last != nil && last.ReplayedXactAt != nil {
		if age := last.Now.Sub(*last.ReplayedXactAt).Seconds(); age >= replayTimestampNote {
			ev = append(ev, item(EvReplayTimestamp, fmt.Sprintf("now() - pg_last_xact_replay_timestamp() reads %s, but nothing is left to replay: no transaction committed on the primary since; the lag is 0 s", secs(age)), Figures{"age_s": age}))
		}
	}
	if s := p.Sender; s != nil && s.ReplayLagS != nil && p.Unreplayed > IdleLag {
		ev = append(ev, item(EvReplayLagColumn, fmt.Sprintf("pg_stat_replication.replay_lag reads %s with %s not replayed: it times the standby's last replies, not the backlog", secs(*s.ReplayLagS), bytesText(p.Unreplayed)),
			Figures{"replay_lag_s": *s.ReplayLagS, "unreplayed_bytes": float64(p.Unreplayed)}))
	}
	return ev
}
