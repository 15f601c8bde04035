package exporter

import (
	"math"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
)

// A physical standby's path (a pair with primary/standby) is exported
// under the path series (lagscope_verdict, lagscope_bottleneck,
// lagscope_verdict_confidence_ratio, lagscope_stage_utilisation_ratio,
// lagscope_lag_bytes, lagscope_lag_seconds) with slot and subscription
// empty and standby naming it, and under the lagscope_standby_* series
// below (pair, standby). The standby's name is the report's: the
// walsender's application_name when the primary is watched and the
// standby's walsender is known (on its slot, or the only physical one),
// else "standby".
var (
	standbyLabels = []string{"pair", "standby"}

	descStandbyLagBytes = prometheus.NewDesc("lagscope_standby_replay_lag_bytes",
		"WAL the physical standby has not replayed at the window's end, from the primary's position (or what the standby knows of it) to pg_last_wal_replay_lsn(): 0 when everything is replayed, however old pg_last_xact_replay_timestamp() is on an idle primary.",
		standbyLabels, nil)
	descStandbyLagSeconds = prometheus.NewDesc("lagscope_standby_replay_lag_seconds",
		"That WAL in time: its bytes over the primary's WAL rate (the age of the oldest WAL not replayed), or over replay's rate when the primary is idle; 0 when everything is replayed; never now() - pg_last_xact_replay_timestamp(); absent when unknown.",
		standbyLabels, nil)
	descStandbyRate = prometheus.NewDesc("lagscope_standby_wal_bytes_per_second",
		"WAL rates of the physical path over the window, by position: generated (the primary), sent (walsender), received (WAL receiver), replayed (startup process); 0 when not moving.",
		append(standbyLabels, "position"), nil)
	descCatchUp = prometheus.NewDesc("lagscope_standby_catch_up_seconds",
		"Catch-up forecast: the WAL not replayed over replay's rate less the primary's (model: both rates stay as in the window); 0 when nothing is behind; +Inf when replay is not faster than the primary writes (never at this rate); absent when the lag is unknown.",
		standbyLabels, nil)
	descReplayPaused = prometheus.NewDesc("lagscope_standby_replay_paused",
		"1 when replay is paused or a pause is requested (pg_get_wal_replay_pause_state()), 0 when not; only where the standby is watched.",
		standbyLabels, nil)
	descReplayDelayed = prometheus.NewDesc("lagscope_standby_replay_delayed",
		"1 when recovery_min_apply_delay holds replay back on purpose (the setting is above 0), 0 when not; only where the standby is watched.",
		standbyLabels, nil)
	descApplyDelay = prometheus.NewDesc("lagscope_standby_min_apply_delay_seconds",
		"The standby's recovery_min_apply_delay; only where the standby is watched.",
		standbyLabels, nil)
	descStandbyConflicts = prometheus.NewDesc("lagscope_standby_conflict_cancels_total",
		"Queries on the standby cancelled by replay, by kind (pg_stat_database_conflicts summed over databases: tablespace, lock, snapshot, bufferpin, deadlock, active_logicalslot on 16+); the server's own counters: a reset reads as a counter reset.",
		append(standbyLabels, "kind"), nil)
)

var standbyDescs = []*prometheus.Desc{descStandbyLagBytes, descStandbyLagSeconds, descStandbyRate, descCatchUp,
	descReplayPaused, descReplayDelayed, descApplyDelay, descStandbyConflicts}

// PhysicalStages are the label values of lagscope_bottleneck's stage for
// a physical path, in pipeline order, and "none".
var PhysicalStages = []string{stageLabel(model.StageWalsender), stageLabel(model.StageLink),
	stageLabel(model.StageReceiver), stageLabel(model.StageReplay), stageLabel("")}

// physicalParts name a physical path's lag parts (lagscope_lag_bytes'
// part) by stage.
var physicalParts = map[model.StageName]string{model.StageWalsender: "not_sent", model.StageLink: "in_flight", model.StageReplay: "received_not_replayed"}

// collectPhysical sends one physical path's series. last is the window's
// last tick the standby answered (nil: not watched or not answered); its
// reads belong to the path only when the report has the standby.
func collectPhysical(gauge, counter func(*prometheus.Desc, float64, ...string), s *PairState, p report.PhysicalPath, last *sample.StandbyRead) {
	l := []string{s.Pair, "", "", p.Standby}
	with := func(v ...string) []string { return append(append([]string{}, l...), v...) }
	sl := []string{s.Pair, p.Standby}
	withS := func(v ...string) []string { return append(append([]string{}, sl...), v...) }
	collectVerdict(gauge, l, PhysicalStages, p.Verdict)
	for _, sl := range p.LagPerStage {
		if part, ok := physicalParts[sl.Stage]; ok {
			gauge(descLag, float64(sl.Bytes), with(part)...)
		}
	}
	if sec, ok := p.LagTime.Seconds.Get(); ok {
		gauge(descLagSeconds, sec, l...)
		gauge(descStandbyLagSeconds, sec, sl...)
	}
	behind, known := p.LagBytes.Get()
	if known {
		gauge(descStandbyLagBytes, float64(behind), sl...)
		switch {
		case p.CatchUpS > 0:
			gauge(descCatchUp, p.CatchUpS, sl...)
		case p.CatchUp != "":
			gauge(descCatchUp, math.Inf(1), sl...) // never at this rate
		default:
			gauge(descCatchUp, 0, sl...)
		}
	}
	for _, r := range []struct {
		pos  string
		mbps float64
	}{{"generated", p.GeneratedMBps}, {"sent", p.SentMBps}, {"received", p.ReceivedMBps}, {"replayed", p.ReplayedMBps}} {
		gauge(descStandbyRate, r.mbps*1e6, withS(r.pos)...)
	}
	if tr := p.Slot; tr != nil {
		gauge(descRetained, float64(tr.RetainedBytes), s.Pair, tr.Slot)
		gauge(descGrowth, tr.GrowthBps, s.Pair, tr.Slot)
		if tr.SafeBytes >= 0 {
			gauge(descSafeWAL, float64(tr.SafeBytes), s.Pair, tr.Slot)
		}
		if tr.UnreservedInS >= 0 {
			gauge(descUnreservedIn, tr.UnreservedInS, s.Pair, tr.Slot)
		}
	}
	if last == nil {
		return
	}
	gauge(descReplayPaused, b2f(last.PauseState == "paused" || last.PauseState == "pause requested"), sl...)
	gauge(descReplayDelayed, b2f(last.Settings.MinApplyDelayMS > 0), sl...)
	gauge(descApplyDelay, float64(last.Settings.MinApplyDelayMS)/1000, sl...)
	for _, kind := range sortedKinds(last.Conflicts) {
		counter(descStandbyConflicts, float64(last.Conflicts[kind]), withS(kind)...)
	}
}

// lastStandbyRead is the standby's read at the window's last tick it
// answered (nil if none, or the standby is not watched).
func lastStandbyRead(w *sample.Recording) *sample.StandbyRead {
	if w == nil {
		return nil
	}
	for i := len(w.Ticks) - 1; i >= 0; i-- {
		if r := w.Ticks[i].Read(sample.StandbyNode); r.OK && r.Standby != nil {
			return r.Standby
		}
	}
	return nil
}
