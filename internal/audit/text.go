package audit

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/lagscope/lagscope/internal/quote"
)

// textWidth is the text renderer's line width.
const textWidth = 80

// Text writes the report for a terminal, within 80 columns: the findings,
// worst first, each with what was found, why it matters and the fix; then the
// checks that were not checked or do not apply, and the ones that passed.
func Text(w io.Writer, r Report) error {
	b := &strings.Builder{}
	b.WriteString("lagscope check\n")
	if r.RebuiltFrom != nil {
		wrap(b, "", r.RebuiltFrom.Line())
	}
	if r.Publisher != nil {
		wrap(b, "publisher   ", fmt.Sprintf("PostgreSQL %s, database %s", r.Publisher.Version, quote.Id(r.Publisher.Database)))
	}
	if r.Subscriber != nil {
		wrap(b, "subscriber  ", fmt.Sprintf("PostgreSQL %s, database %s", r.Subscriber.Version, quote.Id(r.Subscriber.Database)))
	}
	if r.Standby != nil {
		wrap(b, "standby     ", fmt.Sprintf("PostgreSQL %s, database %s", r.Standby.Version, quote.Id(r.Standby.Database)))
	}
	if r.Primary != nil {
		wrap(b, "primary     ", fmt.Sprintf("PostgreSQL %s, database %s", r.Primary.Version, quote.Id(r.Primary.Database)))
	}
	wrap(b, "", summaryLine(r))
	for _, f := range r.Findings() {
		b.WriteString("\n")
		wrap(b, fmt.Sprintf("%-8s %s  ", quote.Escape(strings.ToUpper(string(f.Severity))), quote.Escape(f.Check)), strings.Join(f.Objects, ", "))
		wrap(b, "  found  ", f.Found)
		wrap(b, "  why    ", f.Why)
		wrap(b, "  fix    ", f.Fix)
		for _, st := range escapeRun(f.Run) {
			lines := st.Lines()
			for _, l := range lines[:len(lines)-1] {
				wrapComment(b, l) // a comment: folded into comment lines
			}
			b.WriteString("    " + lines[len(lines)-1] + "\n") // never folded: it is pasted
		}
	}
	for _, st := range []struct {
		status Status
		title  string
	}{{StatusNotChecked, "not checked"}, {StatusNotApplicable, "not applicable"}} {
		first := true
		for _, res := range r.Results {
			if res.Status != st.status {
				continue
			}
			if first {
				b.WriteString("\n" + st.title + ":\n")
				first = false
			}
			wrap(b, "  - ", res.Check+": "+res.Reason)
		}
	}
	var ok []string
	for _, res := range r.Results {
		if res.Status == StatusOK {
			ok = append(ok, res.Check)
		}
	}
	if len(ok) > 0 {
		b.WriteString("\n")
		wrap(b, "ok: ", strings.Join(ok, ", "))
	}
	_, err := io.WriteString(w, quote.Sanitize(b.String(), "\n"))
	return err
}

// escapeRun is the statements of a fix with every field escaped
// (quote.Escape): the quoting layer built them printable, so this changes
// nothing but what a report file read back may hold.
func escapeRun(sts []quote.Statement) []quote.Statement {
	out := make([]quote.Statement, len(sts))
	for i, st := range sts {
		st.On, st.Text, st.Note, st.Withheld = quote.Escape(st.On), quote.Escape(st.Text), quote.Escape(st.Note), quote.Escape(st.Withheld)
		out[i] = st
	}
	return out
}

// serversLine names the checked servers.
func serversLine(r Report) string {
	var parts []string
	if r.Publisher != nil {
		parts = append(parts, fmt.Sprintf("publisher PostgreSQL %s (database %s)", quote.Escape(r.Publisher.Version), quote.Id(r.Publisher.Database)))
	}
	if r.Subscriber != nil {
		parts = append(parts, fmt.Sprintf("subscriber PostgreSQL %s (database %s)", quote.Escape(r.Subscriber.Version), quote.Id(r.Subscriber.Database)))
	}
	if r.Standby != nil {
		parts = append(parts, fmt.Sprintf("standby PostgreSQL %s (database %s)", quote.Escape(r.Standby.Version), quote.Id(r.Standby.Database)))
	}
	if r.Primary != nil {
		parts = append(parts, fmt.Sprintf("primary PostgreSQL %s (database %s)", quote.Escape(r.Primary.Version), quote.Id(r.Primary.Database)))
	}
	return strings.Join(parts, ", ")
}

// summaryLine counts findings and checks.
func summaryLine(r Report) string {
	s := r.Summary
	if s.Errors+s.Warnings+s.Infos == 0 {
		return fmt.Sprintf("no findings; %d checks ok, %d not applicable, %d not checked", s.OK, s.NotApplicable, s.NotChecked)
	}
	return fmt.Sprintf("%s, %s, %d info; %d checks ok, %d not applicable, %d not checked",
		plural(int64(s.Errors), "error"), plural(int64(s.Warnings), "warning"), s.Infos,
		s.OK, s.NotApplicable, s.NotChecked)
}

// wrap writes text after prefix, folding at spaces within textWidth and
// breaking words too long for a line (between runes); continuation lines are
// indented to the prefix's width (at most 9 columns when the prefix is
// longer). The text is escaped first (quote.Escape: it holds names from other
// people) and never folded at a space inside a quoted identifier
// (quote.Fields), whose spaces it keeps.
func wrap(b *strings.Builder, prefix, text string) {
	indentWidth := len(prefix)
	if indentWidth > 9 {
		indentWidth = 9
	}
	indent := strings.Repeat(" ", indentWidth)
	line := prefix
	empty := true // nothing but the prefix or indent on the line yet
	for _, word := range quote.Fields(quote.Escape(text)) {
		for {
			room := textWidth - len(line)
			if !empty {
				room-- // the space
			}
			if len(word) <= room {
				break
			}
			if empty && room <= 0 { // the prefix fills the line
				b.WriteString(strings.TrimRight(line, " ") + "\n")
				line = indent
				continue
			}
			if !empty {
				b.WriteString(line + "\n")
				line, empty = indent, true
				continue
			}
			// A word longer than a whole line: break it, between runes.
			cut := room
			for cut > 0 && !utf8.RuneStart(word[cut]) {
				cut--
			}
			if cut == 0 {
				_, cut = utf8.DecodeRuneInString(word)
			}
			b.WriteString(line + word[:cut] + "\n")
			word = word[cut:]
			line = indent
		}
		if !empty {
			line += " "
		}
		line += word
		empty = false
	}
	b.WriteString(strings.TrimRight(line, " ") + "\n")
}

// wrapComment folds a statement's comment line ("-- ..." or "# ...") to the
// text width, each piece a comment line of its own.
func wrapComment(b *strings.Builder, comment string) {
	marker, text, _ := strings.Cut(comment, " ")
	prefix := "    " + marker + " "
	line := prefix
	for _, word := range quote.Fields(text) {
		if line != prefix && len(line)+1+len(word) > textWidth {
			b.WriteString(line + "\n")
			line = prefix
		}
		if line != prefix {
			line += " "
		}
		line += word
	}
	b.WriteString(line + "\n")
}
