package report

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/quote"
	"github.com/lagscope/lagscope/internal/units"
)

// width is the text renderer's line width.
const width = 80

// Text writes the report for a terminal, within 80 columns.
func Text(w io.Writer, r Report) error {
	b := &strings.Builder{}
	wrap(b, "", fmt.Sprintf("lagscope diagnose: %d path(s), %s, %s", len(r.Paths)+len(r.Physical), r.Sampled(), r.probeNote()))
	if r.RebuiltFrom != nil {
		wrap(b, "", r.RebuiltFrom.Line())
	}
	if r.physicalReport() {
		wrap(b, "", r.physicalServers())
	} else {
		wrap(b, "", fmt.Sprintf("publisher PostgreSQL %s%s", r.Publisher.Version, procNote(r.Publisher)))
	}
	if r.Subscriber != nil {
		wrap(b, "", fmt.Sprintf("subscriber PostgreSQL %s%s", r.Subscriber.Version, procNote(*r.Subscriber)))
	}
	for _, p := range r.Paths {
		b.WriteString("\n")
		name := "slot " + quote.Escape(p.Slot)
		if p.Subscription != "" {
			name += " -> subscription " + quote.Escape(p.Subscription)
		}
		b.WriteString(name + "\n")
		fmt.Fprintf(b, "  VERDICT  %s (confidence %.2f)\n", quote.Escape(string(p.Name)), p.Confidence)
		wrap(b, "  ", p.Headline)
		if p.Cause != "" {
			wrap(b, "  ", p.Cause)
		}
		if p.Limit != "" {
			line := "limit: " + string(p.Limit)
			if p.Next != nil {
				line += fmt.Sprintf("; next: %s, %s", p.Next.Stage, headroomText(p.Next.Headroom))
			}
			wrap(b, "  ", line)
		}
		held := ""
		if t := p.Txn; t != nil && t.HeldBytes > p.LagBytes {
			held = fmt.Sprintf(" behind a transaction in flight that holds %s", size(t.HeldBytes))
		}
		wrap(b, "  lag      ", fmt.Sprintf("%s unconfirmed%s%s: %s not yet sent, %s sent not flushed, %s flushed not confirmed",
			size(p.LagBytes), held, lagTimeNote(p.LagTime), size(p.Lag.NotYetSent), size(p.Lag.SentNotFlushed), size(p.Lag.FlushedNotConfd)))
		fmt.Fprintf(b, "  rates    generated %s, decoded %s, confirmed %s\n", rate(p.GeneratedMBps*1e6), rate(p.DecodedMBps*1e6), rate(p.ConfirmedMBps*1e6))
		if p.CatchUp != "" {
			wrap(b, "           ", p.CatchUp)
		}
		if p.Trouble != nil {
			wrap(b, "  slot     ", p.Trouble.Text)
		}
		if c := p.Conflicts; c != nil && c.Text != "" {
			wrap(b, "  conflicts ", c.Text)
		}
		if len(p.Stages) > 0 {
			b.WriteString("  stages\n")
			textTable(b, "    ", stageHeader, stageRows(p.Stages))
		}
		if rows := tableRows(p); len(rows) > 0 {
			b.WriteString("  " + tableTitle + "\n")
			textTable(b, "    ", tableHeader, rows)
			if l := applyWALLine(p); l != "" {
				wrap(b, "    ", l)
			}
		}
		b.WriteString("  evidence\n")
		for _, e := range p.Evidence {
			wrap(b, "    - ", e.Text)
		}
		section(b, "  setup (what 'lagscope check' finds that bears on this)", p.Setup)
		adviceSection(b, "  helps", p.Helps)
		section(b, "  what if (predicted from this window: docs/whatif.md)", whatIfLines(p.WhatIf))
		adviceSection(b, "  does not help", p.NotHelps)
		section(b, "  caveats", p.Caveats)
	}
	for _, p := range r.Physical {
		textPhysical(b, p)
	}
	for _, g := range r.Gaps {
		wrap(b, "gap: ", g)
	}
	for _, n := range r.Notes {
		wrap(b, "note: ", n)
	}
	_, err := io.WriteString(w, quote.Sanitize(b.String(), "\n"))
	return err
}

func section(b *strings.Builder, title string, lines []string) {
	if len(lines) == 0 {
		return
	}
	b.WriteString(title + "\n")
	for _, l := range lines {
		wrap(b, "    - ", l)
	}
}

// adviceSection writes advice under title: each remedy's text folded as
// prose, then its statements on lines of their own, never folded (they are
// pasted as printed).
func adviceSection(b *strings.Builder, title string, advice []model.Advice) {
	if len(advice) == 0 {
		return
	}
	b.WriteString(title + "\n")
	for _, a := range advice {
		wrap(b, "    - ", a.Text)
		for _, st := range a.Run {
			for _, l := range st.Lines() {
				b.WriteString("        " + l + "\n")
			}
		}
	}
}

// wrap writes text after prefix, folding at word boundaries within width;
// continuation lines are indented to the prefix's width. The text is escaped
// first (quote.Escape: it holds names and query text from other people) and
// never folded inside a quoted identifier.
func wrap(b *strings.Builder, prefix, text string) {
	indent := strings.Repeat(" ", len(prefix))
	line := prefix
	for _, word := range words(quote.Escape(text)) {
		if len(line) > len(indent) && len(line)+1+len(word) > width {
			b.WriteString(strings.TrimRight(line, " ") + "\n")
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += word
	}
	b.WriteString(line + "\n")
}

// unitRE matches a word that is a unit: wrap keeps it with its number.
var unitRE = regexp.MustCompile(`^(B|kB|MB|GB|TB|B/s|kB/s|MB/s|GB/s|s|ms|%)[,.;:)]*$`)

// words splits text at spaces (never inside a quoted identifier: quote.Fields),
// keeping a number and its unit together.
func words(text string) []string {
	var out []string
	for _, w := range quote.Fields(text) {
		if n := len(out); n > 0 && unitRE.MatchString(w) && startsWithDigit(out[n-1]) {
			out[n-1] += " " + w
			continue
		}
		out = append(out, w)
	}
	return out
}

func startsWithDigit(w string) bool {
	w = strings.TrimLeft(w, "(~-")
	return w != "" && w[0] >= '0' && w[0] <= '9'
}

func procNote(s Server) string {
	var notes []string
	if s.WaitSource != "" {
		notes = append(notes, fmt.Sprintf("wait events from %s at %.0f Hz", quote.Escape(s.WaitSource), s.WaitHz))
	}
	if s.ProcUnavailable != "" {
		notes = append(notes, "no /proc figures: "+quote.Escape(s.ProcUnavailable))
	}
	if len(notes) == 0 {
		return ""
	}
	return " (" + strings.Join(notes, "; ") + ")"
}

// textTable writes rows under header in aligned columns: the first column
// left-aligned, the others right-aligned. Cells are escaped (a table's or a
// stage's name may come from a file).
func textTable(b *strings.Builder, indent string, header []string, rows [][]string) {
	rows = escapeCells(rows)
	w := make([]int, len(header))
	for _, r := range append([][]string{header}, rows...) {
		for i, c := range r {
			w[i] = max(w[i], len(c))
		}
	}
	for _, r := range append([][]string{header}, rows...) {
		line := indent
		for i, c := range r {
			if i == 0 {
				line += fmt.Sprintf("%-*s", w[i], c)
			} else {
				line += fmt.Sprintf("  %*s", w[i], c)
			}
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
}

// escapeCells is rows with every cell escaped (quote.Escape).
func escapeCells(rows [][]string) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = make([]string, len(r))
		for j, c := range r {
			out[i][j] = quote.Escape(c)
		}
	}
	return out
}

// lagTimeNote is " (about 14 s)" for a known lag in time.
func lagTimeNote(lt model.LagTime) string {
	sec, known := lt.Seconds.Get()
	if !known || lt.Text == "" {
		return ""
	}
	if !lt.DrainS.Known() {
		return ", at least " + units.FormatSeconds(sec)
	}
	return ", about " + units.FormatSeconds(sec)
}

// headroomText says when the next limit saturates.
func headroomText(h float64) string {
	if h >= 10 {
		return "saturating beyond 10x today's rate"
	}
	return fmt.Sprintf("saturating at about %.1fx today's rate", h)
}

// size prints a byte count the way every lagscope output does.
func size(n int64) string { return units.FormatBytes(float64(n)) }

// whatIfLines are the predictions' report lines.
func whatIfLines(ps []model.Prediction) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}
