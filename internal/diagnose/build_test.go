package diagnose

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestReportsFromRecordedRuns renders reports built from recorded lab runs and
// compares them with golden files (go test ./internal/diagnose -update).
func TestReportsFromRecordedRuns(t *testing.T) {
	for _, name := range []string{"walsender-starved-pg15-lab", "stalled-pg15-lab", "caught-up-pg15-lab", "apply-bound-pg16-diag", "network-pg16-diag", "subscriber-lock-pg16-diag", "initial-sync-pg16-diag", "full-identity-pg16-diag"} {
		b, err := os.ReadFile(filepath.Join("..", "classify", "testdata", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var rec sample.Recording
		if err := json.Unmarshal(b, &rec); err != nil {
			t.Fatal(err)
		}
		rep := Build(&rec, nil, 20)
		for format := range report.Renderers {
			t.Run(name+"."+format, func(t *testing.T) {
				var out bytes.Buffer
				if err := report.Render(&out, rep, format); err != nil {
					t.Fatal(err)
				}
				golden := filepath.Join("testdata", name+"."+format+".golden")
				if *update {
					os.MkdirAll("testdata", 0o755)
					os.WriteFile(golden, out.Bytes(), 0o644)
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				if !bytes.Equal(out.Bytes(), want) {
					t.Errorf("%s output differs from %s:\n%s", format, golden, out.String())
				}
				if format == "text" {
					for i, line := range strings.Split(out.String(), "\n") {
						if len(line) > 80 {
							t.Errorf("line %d is %d columns: %q", i+1, len(line), line)
						}
					}
				}
			})
		}
	}
}

func TestASavedJSONReportReRendersTheSame(t *testing.T) {
	b, _ := os.ReadFile(filepath.Join("..", "classify", "testdata", "apply-bound-pg15-lab.json"))
	var rec sample.Recording
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	rep := Build(&rec, nil, 20)
	var js, direct, again bytes.Buffer
	report.JSON(&js, rep)
	report.Markdown(&direct, rep)
	back, err := report.Read(&js)
	if err != nil {
		t.Fatal(err)
	}
	report.Markdown(&again, back)
	if direct.String() != again.String() {
		t.Errorf("markdown from the saved JSON differs:\n%s\n---\n%s", direct.String(), again.String())
	}
	if _, err := report.Read(strings.NewReader(`{"hello": 1}`)); err == nil {
		t.Error("a JSON file that is not a report was accepted")
	}
}

// CONTRIBUTING's example report is the golden file of the recording it names,
// word for word: the example cannot drift from what the binary prints.
func TestTheReadmeExampleIsTheGoldenReport(t *testing.T) {
	readme, err := os.ReadFile("../../CONTRIBUTING.md") // the full example; README.md shows its first lines (internal/release)
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile("testdata/apply-bound-pg16-diag.text.golden")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```\n"+string(golden)+"```") {
		t.Errorf("README's example differs from testdata/apply-bound-pg16-diag.text.golden: paste the golden file into it")
	}
}
