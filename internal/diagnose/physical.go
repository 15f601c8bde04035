package diagnose

import (
	"sort"
	"strconv"

	"github.com/lagscope/lagscope/internal/buildinfo"
	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/quote"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/units"
)

// IsPhysical says whether rec is a physical standby's recording (its nodes
// a primary and/or a standby, no publisher).
func IsPhysical(rec *sample.Recording) bool {
	return rec.Server(sample.PublisherNode) == nil && (rec.Server(sample.PrimaryNode) != nil || rec.Server(sample.StandbyNode) != nil)
}

// BuildPhysical turns a physical standby's recording into a report: one
// path per standby (the observed standby, or with the primary alone every
// standby it feeds), judged by model.JudgePhysical. It is pure.
func BuildPhysical(rec *sample.Recording, probeHz float64) report.Report {
	r := report.Report{SchemaVersion: report.SchemaVersion, Tool: "lagscope", ToolVersion: buildinfo.Version(), Start: rec.Start,
		WindowS: rec.End.Sub(rec.Start).Seconds(), Paths: []report.Path{}}
	if s := rec.Server(sample.PrimaryNode); s != nil {
		srv := server(rec, *s, string(sample.PrimaryNode))
		r.Primary = &srv
	}
	if s := rec.Server(sample.StandbyNode); s != nil {
		srv := server(rec, *s, string(sample.StandbyNode))
		r.Standby = &srv
	}
	r.ProbeHz = probeHz
	for _, s := range []*report.Server{r.Primary, r.Standby} {
		if s != nil && s.ProbeHz > 0 {
			r.ProbeHz = s.ProbeHz
			break
		}
	}
	for _, in := range model.PhysicalInputs(rec) {
		ph := in.Path
		r.PositionsS = max(r.PositionsS, ph.WindowS)
		p := report.PhysicalPath{Standby: ph.Standby, Verdict: model.JudgePhysical(in), LagPerStage: model.PhysicalLag(ph),
			GeneratedMBps: units.MBPerSecond(ph.Generated), SentMBps: units.MBPerSecond(ph.Sent),
			ReceivedMBps: units.MBPerSecond(ph.Received), ReplayedMBps: units.MBPerSecond(ph.Replayed),
			Sender: ph.Sender, Slot: model.PhysicalSlotTrouble(ph), Walsender: ph.Walsender, Receiver: ph.Receiver, Startup: ph.Startup}
		p.Cascades = model.Cascades(ph, p.Limit)
		p.Decoding = model.StandbyDecodings(ph)
		if b := ph.Behind(); b >= 0 {
			p.LagBytes = model.Known(b)
		}
		if p.Name != model.CaughtUp {
			p.CatchUp, p.CatchUpS = model.CatchUpForecast(p.Name, ph)
		}
		if n := notFedNote(ph); n != "" {
			r.Notes = append(r.Notes, n)
		}
		p.WhatIf = model.PlanPhysical(in, p.Verdict)
		if p.Evidence == nil {
			p.Evidence = []model.Evidence{}
		}
		for _, l := range []*[]model.Advice{&p.Helps, &p.NotHelps} {
			if *l == nil {
				*l = []model.Advice{}
			}
		}
		r.Physical = append(r.Physical, p)
	}
	sort.SliceStable(r.Physical, func(i, j int) bool { return r.Physical[i].Standby < r.Physical[j].Standby })
	r.Gaps = gapLines(rec)
	r.Notes = append(r.Notes, readErrorNotes(rec)...)
	switch {
	case r.Standby == nil:
		r.Notes = append(r.Notes, "no --standby: each standby's WAL receiver and startup process were not observed; its positions are what it reported to the primary")
	case r.Primary == nil:
		r.Notes = append(r.Notes, "no --primary: the walsender and the WAL not yet sent were not observed")
	}
	return r
}

// notFedNote says so when both ends were observed and no walsender of the
// primary serves the standby: a cascaded standby given with the real
// primary, or one fed by another server ("" otherwise). Its upstream's
// name and slot come from the standby's pg_stat_wal_receiver.
func notFedNote(ph measure.Physical) string {
	if !ph.HasPrimary || !ph.HasStandby || ph.Sender != nil || ph.Last == nil || ph.Last.Receiver == nil {
		return ""
	}
	rc := ph.Last.Receiver
	from := "a server"
	if rc.SenderHost != "" {
		from = quote.Escape(rc.SenderHost) + ":" + strconv.Itoa(rc.SenderPort)
	}
	if rc.Slot != "" {
		from += " on slot " + quote.Escape(rc.Slot)
	}
	return "no walsender of the --primary given serves this standby: it streams from " + from +
		" (a cascaded standby, whose upstream is another standby, or a primary other than the one given); the WAL not yet sent and the link were not observed: diagnose its upstream as --standby, with the real primary, for the first hop"
}
