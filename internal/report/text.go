package report

import (
	"fmt"
	"io"
	"strings"
)

// width is the text renderer's line width.
const width = 80

// Text writes the report for a terminal, within 80 columns.
func Text(w io.Writer, r Report) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "lagscope diagnose: %d path(s), %.0f s sampled, wait events at %g Hz\n", len(r.Paths), r.WindowS, r.ProbeHz)
	wrap(b, "", fmt.Sprintf("publisher PostgreSQL %s%s", r.Publisher.Version, procNote(r.Publisher)))
	if r.Subscriber != nil {
		wrap(b, "", fmt.Sprintf("subscriber PostgreSQL %s%s", r.Subscriber.Version, procNote(*r.Subscriber)))
	}
	for _, p := range r.Paths {
		b.WriteString("\n")
		name := "slot " + p.Slot
		if p.Subscription != "" {
			name += " -> subscription " + p.Subscription
		}
		b.WriteString(name + "\n")
		fmt.Fprintf(b, "  VERDICT  %s (confidence %.2f)\n", p.Name, p.Confidence)
		wrap(b, "  ", p.Headline)
		if p.Cause != "" {
			wrap(b, "  ", p.Cause)
		}
		fmt.Fprintf(b, "  lag      %s unconfirmed: %s not yet sent, %s sent not flushed,\n           %s flushed not confirmed\n",
			mbytes(p.LagBytes), mbytes(p.Lag.NotYetSent), mbytes(p.Lag.SentNotFlushed), mbytes(p.Lag.FlushedNotConfd))
		fmt.Fprintf(b, "  rates    generated %.1f MB/s, decoded %.1f MB/s, confirmed %.1f MB/s", p.GeneratedMBps, p.DecodedMBps, p.ConsumedMBps)
		if p.CatchUp != "" {
			fmt.Fprintf(b, "\n           %s", p.CatchUp)
		}
		b.WriteString("\n  evidence\n")
		for _, e := range p.Evidence {
			wrap(b, "    - ", e)
		}
		section(b, "  helps", p.Helps)
		section(b, "  does not help", p.NotHelps)
		section(b, "  caveats", p.Caveats)
	}
	for _, g := range r.Gaps {
		wrap(b, "gap: ", g)
	}
	for _, n := range r.Notes {
		wrap(b, "note: ", n)
	}
	_, err := io.WriteString(w, b.String())
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

// wrap writes text after prefix, folding at word boundaries within width;
// continuation lines are indented to the prefix's width.
func wrap(b *strings.Builder, prefix, text string) {
	indent := strings.Repeat(" ", len(prefix))
	line := prefix
	for _, word := range strings.Fields(text) {
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

func procNote(s Server) string {
	if s.ProcUnavailable == "" {
		return ""
	}
	return " (no /proc figures: " + s.ProcUnavailable + ")"
}

func mbytes(n int64) string {
	switch {
	case n >= 10e9:
		return fmt.Sprintf("%.0f GB", float64(n)/1e9)
	case n >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.0f MB", float64(n)/1e6)
	default:
		return fmt.Sprintf("%.0f kB", float64(n)/1e3)
	}
}
