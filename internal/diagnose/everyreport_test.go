package diagnose

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/testkit/recordings"
)

// everyReportSums is the fingerprint of every report of every recording:
// one line per recording and format, "sha256  name.format".
const everyReportSums = "testdata/every-report.sha256"

// TestEveryReportOfEveryRecording is the refactoring harness: it renders the
// report of every recording in the regression set (internal/classify/testdata)
// in every format and compares each with its fingerprint, so that a move of
// code that must not change what lagscope prints is shown to change nothing.
// A change meant to alter reports rewrites the fingerprints with -update and
// says so in its commit. With $LAGSCOPE_REPORTS_DIR set the reports are also
// written there, to diff the trees of two commits.
func TestEveryReportOfEveryRecording(t *testing.T) {
	dir := filepath.Join("..", "classify", "testdata")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recordings in %s (%v)", dir, err)
	}
	formats := make([]string, 0, len(report.Renderers))
	for f := range report.Renderers {
		formats = append(formats, f)
	}
	slices.Sort(formats)
	dump := os.Getenv("LAGSCOPE_REPORTS_DIR")
	var sums strings.Builder
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		rec, err := recordings.Read(dir, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rep := Build(rec, nil, 20)
		for _, format := range formats {
			var out bytes.Buffer
			if err := report.Render(&out, rep, format); err != nil {
				t.Fatalf("%s.%s: %v", name, format, err)
			}
			fmt.Fprintf(&sums, "%x  %s.%s\n", sha256.Sum256(out.Bytes()), name, format)
			if dump != "" {
				if err := os.WriteFile(filepath.Join(dump, name+"."+format), out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if *update {
		if err := os.WriteFile(everyReportSums, []byte(sums.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(everyReportSums)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	got := strings.Split(sums.String(), "\n")
	have := strings.Split(string(want), "\n")
	if len(got) != len(have) {
		t.Errorf("%d reports rendered, %d fingerprinted in %s", len(got)-1, len(have)-1, everyReportSums)
	}
	var differ []string
	for i := range min(len(got), len(have)) {
		if got[i] != have[i] {
			differ = append(differ, strings.TrimSpace(got[i][strings.Index(got[i], " "):]))
		}
	}
	if len(differ) > 0 {
		t.Errorf("%d reports differ from %s (diff them with LAGSCOPE_REPORTS_DIR on two commits): %s",
			len(differ), everyReportSums, strings.Join(differ, ", "))
	}
}
