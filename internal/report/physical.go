package report

import (
	"fmt"
	"strings"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/quote"
	"github.com/lagscope/lagscope/internal/render"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/units"
)

// PhysicalPath is the diagnosis of one physical standby's path: the
// primary's walsender, the link, the standby's WAL receiver and its
// startup process (model.JudgePhysical).
type PhysicalPath struct {
	// Standby names the standby: the walsender's application_name, or
	// "standby" when the primary was not observed.
	Standby string `json:"standby"`
	model.Verdict
	// LagBytes is the WAL the standby has not replayed, from the primary's
	// position (or what the standby knows of it) to its replay position;
	// null when unknown. It is 0 when everything is replayed, whatever
	// pg_last_xact_replay_timestamp() says.
	LagBytes model.Optional[int64] `json:"lag_bytes"`
	// LagPerStage is that WAL split by stage: not yet sent (walsender), in
	// flight (link), received not replayed (startup), each in bytes and in
	// the time the primary took to write it.
	LagPerStage []model.StageLag `json:"lag_per_stage"`
	// Rates in MB/s over the window: WAL generated, sent, received and
	// replayed.
	GeneratedMBps float64 `json:"generated_mb_per_s"`
	SentMBps      float64 `json:"sent_mb_per_s"`
	ReceivedMBps  float64 `json:"received_mb_per_s"`
	ReplayedMBps  float64 `json:"replayed_mb_per_s"`
	// CatchUp is the catch-up forecast with its model ("" when nothing is
	// behind); CatchUpS its seconds (0: never, or nothing behind).
	CatchUp  string  `json:"catch_up,omitempty"`
	CatchUpS float64 `json:"catch_up_s,omitempty"`
	// Sender is the walsender's row of pg_stat_replication at the window's
	// end: the positions the standby reported, its lag columns and
	// sync_state (nil: the primary not observed).
	Sender *sample.Sender `json:"sender,omitempty"`
	// Slot is the physical slot's time to trouble (nil: no slot, or read
	// fewer than twice).
	Slot *model.PhysicalSlot `json:"time_to_trouble,omitempty"`
	// WhatIf predicts what each remedy of the verdict buys: the catch-up
	// once a hold ends, a faster link (model.PlanPhysical; docs/whatif.md,
	// "Physical standbys").
	WhatIf []model.Prediction `json:"what_if,omitempty"`
	// Cascades are the cascaded standbys this standby feeds from its own
	// walsenders, each behind the real primary hop by hop, with the hop
	// that limits it (none: it feeds none, or was not observed).
	Cascades []model.Cascade `json:"cascades,omitempty"`
	// Decoding are the logical slots on this standby (16+), each with
	// whether the standby's replay limits its decoding.
	Decoding []model.StandbyDecoding `json:"standby_decoding,omitempty"`
	// Walsender, Receiver and Startup are the processes' figures.
	Walsender measure.Proc `json:"walsender"`
	Receiver  measure.Proc `json:"walreceiver"`
	Startup   measure.Proc `json:"startup"`
}

// physicalHeader is the heading of a physical path.
func (p PhysicalPath) heading() string {
	return "standby " + quote.Escape(p.Standby) + " (physical)"
}

// lagLine is the lag in one line: the total, its time, and per stage.
func (p PhysicalPath) lagLine() string {
	total, ok := p.LagBytes.Get()
	if !ok {
		return "not known: neither end's positions were read"
	}
	var parts []string
	for _, l := range p.LagPerStage {
		s := size(l.Bytes) + " " + stageLagNoun[l.Stage]
		if sec, ok := l.Seconds.Get(); ok && l.Bytes > 0 {
			s += " (" + units.FormatSeconds(sec) + ")"
		}
		parts = append(parts, s)
	}
	when := ""
	if sec, ok := p.LagTime.Seconds.Get(); ok {
		when = ", about " + units.FormatSeconds(sec)
	}
	return fmt.Sprintf("%s behind%s: %s", size(total), when, strings.Join(parts, ", "))
}

// stageLagNoun says where a stage's WAL waits.
var stageLagNoun = map[model.StageName]string{model.StageWalsender: "not yet sent", model.StageLink: "in flight", model.StageReplay: "received not replayed"}

// ratesLine is the physical path's rates.
func (p PhysicalPath) ratesLine() string {
	return fmt.Sprintf("generated %s, sent %s, received %s, replayed %s", rate(p.GeneratedMBps*1e6), rate(p.SentMBps*1e6), rate(p.ReceivedMBps*1e6), rate(p.ReplayedMBps*1e6))
}

// senderLine is what the primary lists of the standby.
func (p PhysicalPath) senderLine() string {
	s := p.Sender
	if s == nil {
		return ""
	}
	out := fmt.Sprintf("pid %d, %s, sync_state %s: sent %s, written %s, flushed %s, replayed %s", s.PID, s.State, s.SyncState, s.Sent, s.Write, s.Flush, s.Replay)
	if s.Slot != "" {
		out += ", slot " + s.Slot
	}
	return out
}

// textPhysical writes a physical path as the text report does a logical
// one.
func textPhysical(b *strings.Builder, p PhysicalPath) {
	b.WriteString("\n" + p.heading() + "\n")
	fmt.Fprintf(b, "  VERDICT  %s (confidence %.2f)\n", quote.Escape(string(p.Name)), p.Confidence)
	wrap(b, "  ", p.Headline)
	if p.Cause != "" {
		wrap(b, "  ", p.Cause)
	}
	if p.Limit != "" {
		wrap(b, "  ", "limit: "+string(p.Limit))
	}
	wrap(b, "  lag      ", p.lagLine())
	if p.LagTime.Text != "" {
		wrap(b, "           ", p.LagTime.Text)
	}
	wrap(b, "  rates    ", p.ratesLine())
	if p.CatchUp != "" {
		wrap(b, "           ", p.CatchUp)
	}
	if l := p.senderLine(); l != "" {
		wrap(b, "  sender   ", l)
	}
	if p.Slot != nil {
		wrap(b, "  slot     ", p.Slot.Text)
	}
	for _, c := range p.Cascades {
		wrap(b, "  cascade  ", c.Text)
	}
	for _, d := range p.Decoding {
		wrap(b, "  decoding ", d.Text)
	}
	if len(p.Stages) > 0 {
		b.WriteString("  stages\n")
		textTable(b, "    ", stageHeader, stageRows(p.Stages))
	}
	b.WriteString("  evidence\n")
	for _, e := range p.Evidence {
		wrap(b, "    - ", e.Text)
	}
	adviceSection(b, "  helps", p.Helps)
	adviceSection(b, "  does not help", p.NotHelps)
	if len(p.WhatIf) > 0 {
		section(b, "  what if (predicted from this window: docs/whatif.md)", whatIfLines(p.WhatIf))
	}
	section(b, "  caveats", p.Caveats)
}

// markdownPhysical writes a physical path as the Markdown report does a
// logical one.
func markdownPhysical(b *strings.Builder, p PhysicalPath) {
	fmt.Fprintf(b, "\n### %s\n\n**%s** (confidence %.2f): %s\n", p.heading(), quote.Escape(string(p.Name)), p.Confidence, quote.Escape(p.Headline))
	if p.Cause != "" {
		fmt.Fprintf(b, "\n%s\n", quote.Escape(p.Cause))
	}
	b.WriteString("\n| | |\n|---|---|\n")
	fmt.Fprintf(b, "| lag | %s |\n", render.MarkdownCell(p.lagLine()))
	if p.LagTime.Text != "" {
		fmt.Fprintf(b, "| lag in time | %s |\n", render.MarkdownCell(strings.TrimPrefix(p.LagTime.Text, "lag in time: ")))
	}
	fmt.Fprintf(b, "| rates | %s |\n", render.MarkdownCell(p.ratesLine()))
	if p.CatchUp != "" {
		fmt.Fprintf(b, "| outlook | %s |\n", render.MarkdownCell(p.CatchUp))
	}
	if l := p.senderLine(); l != "" {
		fmt.Fprintf(b, "| sender | %s |\n", render.MarkdownCell(l))
	}
	if p.Slot != nil {
		fmt.Fprintf(b, "| slot | %s |\n", render.MarkdownCell(p.Slot.Text))
	}
	for _, c := range p.Cascades {
		fmt.Fprintf(b, "| cascade | %s |\n", render.MarkdownCell(c.Text))
	}
	for _, d := range p.Decoding {
		fmt.Fprintf(b, "| decoding | %s |\n", render.MarkdownCell(d.Text))
	}
	if p.Limit != "" {
		fmt.Fprintf(b, "| limit | %s |\n", render.MarkdownCell(string(p.Limit)))
	}
	if len(p.Stages) > 0 {
		b.WriteString("\nStages (shares of a core or of wait-event probes; util = busy + own waits; headroom = 1/util):\n\n")
		mdTable(b, stageHeader, stageRows(p.Stages))
	}
	list(b, "Evidence", model.EvidenceTexts(p.Evidence))
	adviceList(b, "What helps", p.Helps)
	adviceList(b, "What does not help", p.NotHelps)
	if len(p.WhatIf) > 0 {
		list(b, "What if (predicted from this window: docs/whatif.md)", whatIfLines(p.WhatIf))
	}
	list(b, "Caveats", p.Caveats)
}

// serversLine names a physical report's servers ("" for a logical one).
func (r Report) physicalServers() string {
	var parts []string
	if s := r.Primary; s != nil {
		parts = append(parts, fmt.Sprintf("primary PostgreSQL %s%s", quote.Escape(s.Version), procNote(*s)))
	}
	if s := r.Standby; s != nil {
		parts = append(parts, fmt.Sprintf("standby PostgreSQL %s%s", quote.Escape(s.Version), procNote(*s)))
	}
	return strings.Join(parts, ", ")
}

// physicalReport says whether r is a physical standby's report.
func (r Report) physicalReport() bool { return r.Primary != nil || r.Standby != nil }
