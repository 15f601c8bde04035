package diagnose

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/testkit/recordings"
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

// TestASavedJSONReportReRendersTheSame builds the report of every recording
// (internal/classify/testdata), saves it as JSON and reads it back as
// 'lagscope report --input' does (report.Read): every format renders from
// the saved report exactly as from the built one, the JSON included, and
// every evidence item and remedy keeps its key and its figures.
func TestASavedJSONReportReRendersTheSame(t *testing.T) {
	dir := filepath.Join("..", "classify", "testdata")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recordings in %s (%v)", dir, err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			rec, err := recordings.Read(dir, name)
			if err != nil {
				t.Fatal(err)
			}
			rep := Build(rec, nil, 20)
			var saved bytes.Buffer
			if err := report.JSON(&saved, rep); err != nil {
				t.Fatal(err)
			}
			back, err := report.Read(bytes.NewReader(saved.Bytes()))
			if err != nil {
				t.Fatalf("read the saved report back: %v", err)
			}
			for format := range report.Renderers {
				var direct, again bytes.Buffer
				if err := report.Render(&direct, rep, format); err != nil {
					t.Fatal(err)
				}
				if err := report.Render(&again, back, format); err != nil {
					t.Fatal(err)
				}
				if direct.String() != again.String() {
					t.Errorf("%s from the saved JSON differs from the built report's", format)
				}
			}
			if len(back.Paths) != len(rep.Paths) {
				t.Fatalf("%d paths read back, %d built", len(back.Paths), len(rep.Paths))
			}
			for i, p := range rep.Paths {
				b := back.Paths[i]
				if !reflect.DeepEqual(b.Evidence, p.Evidence) {
					t.Errorf("slot %s: evidence read back %+v, built %+v", p.Slot, b.Evidence, p.Evidence)
				}
				for _, l := range []struct{ built, read []model.Advice }{{p.Helps, b.Helps}, {p.NotHelps, b.NotHelps}} {
					if len(l.read) != len(l.built) {
						t.Fatalf("slot %s: %d remedies read back, %d built", p.Slot, len(l.read), len(l.built))
					}
					for j, a := range l.built {
						if r := l.read[j]; r.Key != a.Key || !reflect.DeepEqual(r.Figures, a.Figures) {
							t.Errorf("slot %s: remedy %q read back with key %q and figures %v, built with %q and %v", p.Slot, a.Text, r.Key, r.Figures, a.Key, a.Figures)
						}
					}
				}
				for _, e := range b.Evidence {
					if e.Key == "" {
						t.Errorf("slot %s: evidence %q read back with no key", p.Slot, e.Text)
					}
				}
			}
		})
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
