package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/quote"
	"github.com/lagscope/lagscope/internal/render"
)

// Markdown writes the report for a ticket or a mailing-list post.
func Markdown(w io.Writer, r Report) error {
	b := &strings.Builder{}
	if r.physicalReport() {
		fmt.Fprintf(b, "## lagscope diagnosis\n\n%d path(s), %s, %s. %s", len(r.Physical), r.Sampled(), r.probeNote(), r.physicalServers())
	} else {
		fmt.Fprintf(b, "## lagscope diagnosis\n\n%d path(s), %s, %s. Publisher PostgreSQL %s%s",
			len(r.Paths), r.Sampled(), r.probeNote(), quote.Escape(r.Publisher.Version), procNote(r.Publisher))
	}
	if r.Subscriber != nil {
		fmt.Fprintf(b, ", subscriber PostgreSQL %s%s", quote.Escape(r.Subscriber.Version), procNote(*r.Subscriber))
	}
	b.WriteString(".\n")
	if r.RebuiltFrom != nil {
		fmt.Fprintf(b, "\n> %s\n", r.RebuiltFrom.MarkdownLine())
	}
	for _, p := range r.Paths {
		name := "slot " + render.MarkdownCode(p.Slot)
		if p.Subscription != "" {
			name += " → subscription " + render.MarkdownCode(p.Subscription)
		}
		fmt.Fprintf(b, "\n### %s\n\n**%s** (confidence %.2f): %s\n", name, quote.Escape(string(p.Name)), p.Confidence, quote.Escape(p.Headline))
		if p.Cause != "" {
			fmt.Fprintf(b, "\n%s\n", quote.Escape(p.Cause))
		}
		b.WriteString("\n| | |\n|---|---|\n")
		fmt.Fprintf(b, "| unconfirmed WAL | %s |\n| not yet sent | %s |\n| sent, not flushed | %s |\n| flushed, not confirmed | %s |\n",
			size(p.LagBytes), size(p.Lag.NotYetSent), size(p.Lag.SentNotFlushed), size(p.Lag.FlushedNotConfd))
		fmt.Fprintf(b, "| generated | %s |\n| decoded (sent_lsn) | %s |\n| confirmed | %s |\n", rate(p.GeneratedMBps*1e6), rate(p.DecodedMBps*1e6), rate(p.ConfirmedMBps*1e6))
		if p.CatchUp != "" {
			fmt.Fprintf(b, "| outlook | %s |\n", render.MarkdownCell(p.CatchUp))
		}
		if p.Trouble != nil {
			fmt.Fprintf(b, "| slot | %s |\n", render.MarkdownCell(p.Trouble.Text))
		}
		if c := p.Conflicts; c != nil && c.Text != "" {
			fmt.Fprintf(b, "| conflicts | %s |\n", render.MarkdownCell(c.Text))
		}
		if p.Limit != "" {
			fmt.Fprintf(b, "| limit | %s |\n", render.MarkdownCell(string(p.Limit)))
			if p.Next != nil {
				fmt.Fprintf(b, "| next limit | %s, %s |\n", render.MarkdownCell(string(p.Next.Stage)), headroomText(p.Next.Headroom))
			}
		}
		if p.LagTime.Text != "" {
			fmt.Fprintf(b, "| lag in time | %s |\n", render.MarkdownCell(strings.TrimPrefix(p.LagTime.Text, "lag in time: ")))
		}
		if len(p.Stages) > 0 {
			b.WriteString("\nStages (shares of a core or of wait-event probes; util = busy + own waits; headroom = 1/util):\n\n")
			mdTable(b, stageHeader, stageRows(p.Stages))
		}
		if rows := tableRows(p); len(rows) > 0 {
			b.WriteString("\n" + strings.ToUpper(tableTitle[:1]) + tableTitle[1:] + ":\n\n")
			mdTable(b, tableHeader, rows)
			if l := applyWALLine(p); l != "" {
				b.WriteString("\n" + strings.ToUpper(l[:1]) + l[1:] + ".\n")
			}
		}
		if rows := seriesRows(p.Series); len(rows) > 0 {
			b.WriteString("\nOver the window (lag at each tick; rates, CPU and the top wait event since the tick before):\n\n")
			mdTable(b, seriesHeader, rows)
		}
		list(b, "Evidence", model.EvidenceTexts(p.Evidence))
		list(b, "Setup that bears on it (lagscope check)", p.Setup)
		adviceList(b, "What helps", p.Helps)
		list(b, "What if (predicted from this window: docs/whatif.md)", whatIfLines(p.WhatIf))
		adviceList(b, "What does not help", p.NotHelps)
		list(b, "Caveats", p.Caveats)
	}
	for _, p := range r.Physical {
		markdownPhysical(b, p)
	}
	list(b, "Sampling gaps", r.Gaps)
	list(b, "Notes", r.Notes)
	_, err := io.WriteString(w, quote.Sanitize(b.String(), "\n"))
	return err
}

func list(b *strings.Builder, title string, items []string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s:\n\n", title)
	for _, it := range items {
		fmt.Fprintf(b, "- %s\n", quote.Escape(it))
	}
}

// adviceList writes advice under title: each remedy a list item, its
// statements in a fenced block inside the item (quote.Block: the fence
// outruns any backtick in them), never an inline span.
func adviceList(b *strings.Builder, title string, advice []model.Advice) {
	if len(advice) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s:\n\n", title)
	for _, a := range advice {
		fmt.Fprintf(b, "- %s\n", a.Text)
		if len(a.Run) == 0 {
			continue
		}
		b.WriteString("\n")
		for _, l := range strings.SplitAfter(strings.TrimSuffix(quote.Block(a.Run), "\n"), "\n") {
			b.WriteString("  " + l)
		}
		b.WriteString("\n")
	}
}

func mdTable(b *strings.Builder, header []string, rows [][]string) {
	b.WriteString("| " + strings.Join(header, " | ") + " |\n|" + strings.Repeat("---|", len(header)) + "\n")
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = render.MarkdownCell(c)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
}
