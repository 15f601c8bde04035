package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/quote"
	"github.com/lagscope/lagscope/internal/render"
	"github.com/lagscope/lagscope/internal/sample"
)

// Hostile text as other people choose it: a screen clear, an OSC 52 write to
// the operator's clipboard, a right-to-left override, a line feed, a backtick
// and a '|'.
const (
	clear   = "\x1b[2J"
	osc52   = "\x1b]52;c;cm0gLXJmIC8K\x07"
	hostile = "ev" + clear + "il`na|me\u202e\nx" + osc52
)

// visible are the escapes each hostile rune must show as (a line feed in a
// value is shown as \n on a terminal and in Markdown; in HTML it is
// whitespace, which a browser shows as a space).
var visible = []string{`\x1b[2J`, `\x1b]52;c;cm0gLXJmIC8K\x07`, `\u202e`}

// unprintable lists the runes of out that a terminal or a browser would act
// on, besides the renderer's own layout runes.
func unprintable(out, layout string) []string {
	var bad []string
	for i, r := range out {
		if r == utf8.RuneError || !quote.Printable(string(r)) && !strings.ContainsRune(layout, r) {
			bad = append(bad, out[max(0, i-20):min(len(out), i+20)])
		}
	}
	return bad
}

// hostileReport is a report whose every name and text from a server holds
// hostile runes: slot, subscription, verdict texts, a blocker's query in the
// evidence, a table, a stage, a wait event in the charts, the notes.
func hostileReport(t *testing.T) Report {
	r := seriesOf(t, "apply-bound-pg16-diag.json", "lab_sub")
	p := &r.Paths[0]
	p.Slot, p.Subscription = hostile, hostile
	p.Verdict = model.Verdict{Name: "lock-" + hostile, Headline: "headline " + hostile, Cause: "cause " + hostile,
		Evidence: []model.Evidence{{Key: model.EvBlocker, Text: "blocked by pid 42 running UPDATE t SET x = 1 /* " + hostile + " */"},
			{Text: `table public."my  big  table ` + hostile + `" waits on a lock held for a long while by another session`}},
		Caveats: []string{"caveat " + hostile}, Limit: "apply " + hostile,
		Stages: []model.Stage{{Name: "stage " + hostile, CPU: 0.5, Runq: 0.1, Busy: 0.6, Utilisation: 0.6}}}
	p.Setup = []string{"setup " + hostile}
	p.CatchUp = "catch-up " + hostile
	p.Tables = []measure.TableWork{{Schema: "s" + hostile, Name: hostile, Seconds: 10, TableCounts: sample.TableCounts{Inserted: 100}}}
	p.WhatIf = []model.Prediction{}
	for i := range p.Series.Procs {
		pp := &p.Series.Procs[i]
		shares := map[string]float64{}
		for ev, v := range pp.WaitShares {
			shares[ev+hostile] = v
		}
		pp.WaitShares = shares
	}
	r.Publisher.Version = "16 " + hostile
	r.Gaps, r.Notes = []string{"gap " + hostile}, []string{"note " + hostile}
	return r
}

func TestEveryFormatShowsHostileTextEscaped(t *testing.T) {
	r := hostileReport(t)
	for _, c := range []struct {
		name   string
		render Renderer
		layout string // the renderer's own layout runes
	}{
		{"text holds no control rune and shows each escaped", Text, "\n"},
		{"markdown holds no control rune and shows each escaped", Markdown, "\n"},
		{"HTML holds no control rune and shows each escaped", HTML, "\n\t"},
	} {
		var b bytes.Buffer
		if err := c.render(&b, r); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		out := b.String()
		if bad := unprintable(out, c.layout); len(bad) > 0 {
			t.Errorf("%s: unprintable runes in %q", c.name, bad)
		}
		vis := visible
		if c.layout == "\n" {
			vis = append(vis, `\n`)
		}
		for _, v := range vis {
			if !strings.Contains(out, v) {
				t.Errorf("%s: %s is not shown", c.name, v)
			}
		}
	}
}

func TestTextNeverFoldsInsideAQuotedName(t *testing.T) {
	var b bytes.Buffer
	if err := Text(&b, hostileReport(t)); err != nil {
		t.Fatal(err)
	}
	if want := `public."my  big  table ev\x1b[2Jil` + "`na|me\\u202e\\nx" + `\x1b]52;c;cm0gLXJmIC8K\x07"`; !strings.Contains(b.String(), want) {
		t.Errorf("the quoted table name is folded or changed; want %s on one line in:\n%s", want, b.String())
	}
}

func TestMarkdownKeepsNamesInsideTheirSpansAndCells(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", "`plain`"},
		{"a`b", "``a`b``"},
		{"``x```y", "```` ``x```y ````"},
		{"`", "`` ` ``"},
		{"", "`  `"},
		{"a\x1b[2Jb", "`a\\x1b[2Jb`"},
	} {
		if got := render.MarkdownCode(c.in); got != c.want {
			t.Errorf("render.MarkdownCode(%q) = %s, want %s", c.in, got, c.want)
		}
	}
	var b bytes.Buffer
	if err := Markdown(&b, hostileReport(t)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if want := "### slot ``" + quote.Escape(hostile) + "``"; !strings.Contains(out, want) {
		t.Errorf("the slot's code span is not fenced past its backtick: want %q in\n%s", want, out)
	}
	rows := 0
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "| sev") {
			continue
		}
		rows++
		// The table row of the hostile table: its '|' escaped, 8 cells.
		if n := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|"); n != len(tableHeader)+1 {
			t.Errorf("table row %q has %d cell borders, want %d", line, n, len(tableHeader)+1)
		}
	}
	if rows != 1 {
		t.Errorf("%d rows for the hostile table, want 1:\n%s", rows, out)
	}
}

// The pages declare a Content-Security-Policy that allows no script and
// nothing fetched.
func TestEveryHTMLPageDeclaresTheCSP(t *testing.T) {
	var b bytes.Buffer
	if err := HTML(&b, hostileReport(t)); err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	if err := WhatifHTML(&w, model.Checks{Runs: []model.Check{{Scenario: "s " + hostile, Change: "c " + hostile, Verdict: hostile, Measured: 1, Predicted: 1, Today: 1}},
		Failed: []string{"run 2: " + hostile}}, "lagscope lab whatif"); err != nil {
		t.Fatal(err)
	}
	for name, page := range map[string]string{"diagnose": b.String(), "lab whatif": w.String()} {
		head, _, _ := strings.Cut(page, "<style>")
		if !strings.Contains(head, render.CSPMeta) {
			t.Errorf("the %s page declares no CSP before its style", name)
		}
		if bad := unprintable(page, "\n\t"); len(bad) > 0 {
			t.Errorf("the %s page holds unprintable runes: %q", name, bad)
		}
		if !strings.Contains(page, `\u202e`) {
			t.Errorf("the %s page does not show the override escaped", name)
		}
	}
}
