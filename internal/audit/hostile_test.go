package audit

import (
	"bytes"
	"html/template"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lagscope/lagscope/internal/quote"
	"github.com/lagscope/lagscope/internal/render"
)

// hostile is a name as other people choose it: a screen clear, an OSC 52
// write to the operator's clipboard, a right-to-left override, a line feed,
// a backtick and a '|'.
const hostile = "ev\x1b[2Jil`na|me\u202e\nx\x1b]52;c;cm0gLXJmIC8K\x07"

// hostileCheckReport is a check report (as 'check --input' reads one) whose
// names, texts and statements hold hostile runes; one statement is built by
// the quoting layer, one was planted in the file.
func hostileCheckReport() (Report, quote.Statement) {
	built := quote.SQL("ALTER SUBSCRIPTION %I ENABLE;", hostile).OnServer("subscriber")
	f := Finding{Check: "subscription-stopped", Severity: Error,
		Objects: []string{"subscription " + quote.Id(hostile), "table " + hostile},
		Found:   "Subscription " + quote.Id(hostile) + " is disabled; the server said: " + hostile,
		Why:     "why " + hostile, Fix: "fix " + hostile,
		Run: []quote.Statement{built, {Kind: quote.SQLKind, On: "sub" + hostile, Text: "SELECT 1;" + hostile}}}
	r := Report{SchemaVersion: SchemaVersion, Tool: "lagscope", Kind: ReportKind,
		Publisher: &Server{Version: "16 " + hostile, Database: hostile},
		Results: []Result{{Check: f.Check, Status: StatusFindings, Findings: []Finding{f}},
			{Check: "apply-errors" + hostile, Status: StatusNotChecked, Reason: "reason " + hostile},
			{Check: "wal-level`|", Status: StatusOK}},
		Summary: Summary{Errors: 1, WithFindings: 1, NotChecked: 1, OK: 1}}
	return r, built
}

func TestCheckReportsShowHostileTextEscaped(t *testing.T) {
	r, built := hostileCheckReport()
	for _, c := range []struct {
		name   string
		render Renderer
		layout string
		// stmt is how the built statement must appear, whole.
		stmt string
	}{
		{"text prints the statement on a line of its own and every name escaped", Text, "\n", "\n    " + built.Text + "\n"},
		{"markdown prints the statement in a fence and every name escaped", Markdown, "\n", "\n" + built.Text + "\n"},
		{"HTML prints the statement in its <pre> and every name escaped", HTML, "\n\t", "\n" + template.HTMLEscapeString(built.Text) + "\n"},
	} {
		var b bytes.Buffer
		if err := c.render(&b, r); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		out := b.String()
		for i, ru := range out {
			if ru == utf8.RuneError || !quote.Printable(string(ru)) && !strings.ContainsRune(c.layout, ru) {
				t.Errorf("%s: unprintable rune %U at %q", c.name, ru, out[max(0, i-20):min(len(out), i+20)])
			}
		}
		for _, v := range []string{`\x1b[2J`, `\x1b]52;c;cm0gLXJmIC8K\x07`, `\u202e`} {
			if !strings.Contains(out, v) {
				t.Errorf("%s: %s is not shown", c.name, v)
			}
		}
		if !strings.Contains(out, c.stmt) {
			t.Errorf("%s: the statement %s is not printed whole:\n%s", c.name, built.Text, out)
		}
		if c.layout == "\n" && !strings.Contains(out, `SELECT 1;ev\x1b[2Jil`+"`na|me\\u202e\\nx") {
			t.Errorf("%s: the planted statement's line feed is not escaped:\n%s", c.name, out)
		}
	}
}

func TestMarkdownCheckReportKeepsItsTableAndSpans(t *testing.T) {
	r, _ := hostileCheckReport()
	var b bytes.Buffer
	if err := Markdown(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "| error |") {
			if n := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|"); n != 4 {
				t.Errorf("finding row %q has %d cell borders, want 4", line, n)
			}
		}
	}
	if want := "OK: " + render.MarkdownCode("wal-level`|") + "."; !strings.Contains(out, want) || !strings.Contains(want, "``wal-level`|``") {
		t.Errorf("the check's code span is not fenced past its backtick: want %s in\n%s", want, out)
	}
}

func TestWrapKeepsQuotedNamesAndBreaksLongWordsBetweenRunes(t *testing.T) {
	var b strings.Builder
	name := `public."my  big  table"`
	wrap(&b, "  found  ", strings.Repeat("words ", 11)+"then table "+name+" and "+strings.Repeat("é", 100))
	out := b.String()
	if !strings.Contains(out, name) {
		t.Errorf("the quoted name is folded or its spaces changed:\n%s", out)
	}
	if !utf8.ValidString(out) {
		t.Errorf("a long word was broken inside a rune: %q", out)
	}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if len(l) > textWidth {
			t.Errorf("line of %d bytes: %q", len(l), l)
		}
	}
}

func TestTheServersLineEscapesAHostileVersion(t *testing.T) {
	r := Report{Publisher: &Server{Version: "16\n## " + hostile, Database: "app"}}
	var b bytes.Buffer
	if err := Markdown(&b, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "\n## ev") || !strings.Contains(b.String(), `16\n## ev\x1b[2J`) {
		t.Errorf("a line feed in the version starts a heading:\n%s", b.String())
	}
}
