package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lagscope/lagscope/internal/audit"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/quote"
	"github.com/lagscope/lagscope/internal/report"
)

// hostile is a name as other people choose it: a screen clear, an OSC 52
// write to the operator's clipboard, a right-to-left override, a line feed,
// a backtick and a '|'.
const hostile = "ev\x1b[2Jil`na|me\u202e\nx\x1b]52;c;cm0gLXJmIC8K\x07"

// writeJSON saves v in a file of the test's own.
func writeJSON(t *testing.T, name string, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Saved reports are files anybody may hand over: 'report --input' and
// 'check --input' show whatever names they hold escaped, in every format.
func TestSavedReportsWithHostileNamesRenderEscaped(t *testing.T) {
	diag := writeJSON(t, "diag.json", report.Report{SchemaVersion: report.SchemaVersion, Tool: "lagscope",
		Publisher: report.Server{Version: "16 " + hostile},
		Paths: []report.Path{{Slot: "lab_sub", Subscription: hostile, Verdict: model.Verdict{Name: model.SubscriberWaits,
			Headline: "blocked by " + hostile, Evidence: []model.Evidence{{Text: "query: UPDATE t SET x = 1 /* " + hostile + " */"}}}}}})
	f := audit.Finding{Check: "apply-errors", Severity: audit.Error, Objects: []string{"subscription " + quote.Id(hostile)},
		Found: "the server said: " + hostile, Fix: "fix " + hostile,
		Run: []quote.Statement{quote.SQL("ALTER SUBSCRIPTION %I ENABLE;", hostile)}}
	check := writeJSON(t, "check.json", audit.Report{SchemaVersion: audit.SchemaVersion, Tool: "lagscope", Kind: audit.ReportKind,
		Publisher: &audit.Server{Version: "16", Database: hostile},
		Results:   []audit.Result{{Check: f.Check, Side: audit.SubscriberSide, Status: audit.StatusFindings, Findings: []audit.Finding{f}}},
		Summary:   audit.Summary{Errors: 1, WithFindings: 1}})
	for _, format := range []string{"text", "markdown", "html"} {
		for _, c := range []struct {
			name string
			args []string
		}{
			{"report --input", []string{"report", "--input", diag, "--format", format}},
			{"check --input", []string{"check", "--input", check, "--format", format}},
		} {
			out, code, _ := run(t, c.args...)
			if code != ExitOK && code != ExitFinding {
				t.Fatalf("%s --format %s: exit %d: %s", c.name, format, code, out)
			}
			layout := "\n"
			if format == "html" {
				layout = "\n\t"
			}
			for i, r := range out {
				if r == utf8.RuneError || !quote.Printable(string(r)) && !strings.ContainsRune(layout, r) {
					t.Errorf("%s --format %s: unprintable rune %U at %q", c.name, format, r, out[max(0, i-20):min(len(out), i+20)])
				}
			}
			for _, v := range []string{`\x1b[2J`, `\x1b]52;c;cm0gLXJmIC8K\x07`, `\u202e`} {
				if !strings.Contains(out, v) {
					t.Errorf("%s --format %s does not show %s:\n%s", c.name, format, v, out)
				}
			}
		}
	}
}

func TestAnErrorNamingAHostileFileIsShownEscaped(t *testing.T) {
	out, code, _ := run(t, "report", "--input", filepath.Join(t.TempDir(), hostile))
	if code != ExitUsage {
		t.Fatalf("exit %d, want %d: %s", code, ExitUsage, out)
	}
	if !quote.Printable(out) || !strings.Contains(out, `\x1b]52;c;cm0gLXJmIC8K\x07`) {
		t.Errorf("the error shows the file's name unescaped: %q", out)
	}
}
