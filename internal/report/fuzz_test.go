package report_test

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/quote"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
)

// renderers are the formats a person reads, with each one's own layout runes
// (its line feeds; the tabs gonum/plot writes inside an SVG element).
var renderers = []struct {
	name   string
	render report.Renderer
	layout string
}{
	{"text", report.Text, "\n"},
	{"markdown", report.Markdown, "\n"},
	{"html", report.HTML, "\n\t"},
}

// renderAll renders r in every format a person reads and fails on a render
// error or on a rune that reaches the reader unescaped.
func renderAll(t *testing.T, r report.Report) {
	t.Helper()
	for _, f := range renderers {
		var b bytes.Buffer
		if err := f.render(&b, r); err != nil {
			t.Fatalf("%s rendering: %v", f.name, err)
		}
		out := b.String()
		for i, ru := range out {
			if ru == utf8.RuneError || !quote.Printable(string(ru)) && !strings.ContainsRune(f.layout, ru) {
				t.Fatalf("%s rendering holds the unprintable rune %U at %q", f.name, ru, out[max(0, i-20):min(len(out), i+20)])
			}
		}
	}
}

// Any file given to 'lagscope report --input' is refused with an error or
// renders in every format, with no rune a terminal or a browser acts on.
func FuzzReadReport(f *testing.F) {
	for _, p := range []string{"testdata/schema1-apply-bound-pg16.json", "../diagnose/testdata/apply-bound-pg16-diag.json.golden"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"tool":"lagscope","schema_version":3,"paths":[{"lag_bytes":-1,"series":{"points":[{"current_lsn":"0/1"}]}}]}`))
	f.Add([]byte(`{"tool":"lagscope","schema_version":99}`))
	f.Add([]byte(`{"tool":"lagscope","schema_version":7,"publisher":{"version":"16\u001b[2J"},"paths":[{"slot":"s\u202e` + "`|" + `\n\u001b]52;c;eA==\u0007","verdict":"x\u0085","evidence":["q\u2066"]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := report.Read(bytes.NewReader(b))
		if err != nil {
			return
		}
		renderAll(t, r)
	})
}

// Any file given to --from-samples is refused with an error or diagnosed
// into a report that renders in every format (HTML and its charts too) and
// reads back: no panic, no NaN in the JSON (which encoding/json refuses), no
// rune a terminal or a browser acts on.
func FuzzRecordingToReport(f *testing.F) {
	for _, name := range []string{"stalled-pg16-diag.json", "lost-slot-pg15-diag.json", "stalled-pg18-burst.json", "apply-bound-pg15-lab.json"} {
		b, err := os.ReadFile("../classify/testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"version":6,"ticks":[{"at":"2026-12-02T04:00:00Z","pub_ok":true,"current_lsn":"0/10"},{"at":"2026-12-02T04:00:00Z","pub_ok":true,"current_lsn":"0/5"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := sample.ReadRecording(bytes.NewReader(b))
		if err != nil {
			return
		}
		r := diagnose.Build(rec, nil, 20)
		var js bytes.Buffer
		if err := report.JSON(&js, r); err != nil {
			t.Fatalf("JSON of the report: %v", err)
		}
		renderAll(t, r)
		if _, err := report.Read(io.Reader(&js)); err != nil {
			t.Fatalf("the report does not read back: %v", err)
		}
	})
}
