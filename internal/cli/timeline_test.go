package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/recorder"
	"github.com/lagscope/lagscope/internal/sample"
)

// timeline --format html writes the page of a recording: the incident of
// the recorded apply-bound window in the table and its report in the page;
// a format it does not write is a usage error.
func TestTimelineWritesTheHTMLPage(t *testing.T) {
	f, err := os.Open("../classify/testdata/apply-bound-pg16-diag.json")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := sample.ReadRecording(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	w, err := recorder.Open(recorder.Options{Dir: filepath.Join(root, "orders"), RetainAge: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Step(rec, rec.Setup, rec.SetupError); err != nil {
		t.Fatal(err)
	}
	w.Close()
	out, code, _ := run(t, "timeline", "--from-recording", root, "--window", "10s", "--format", "html")
	if code != 0 || !strings.HasPrefix(out, "<!DOCTYPE html>") {
		t.Fatalf("exit %d:\n%.500s", code, out)
	}
	for _, want := range []string{`<a href="#incident-1">`, `<section class="incident" id="incident-1">`, `<div class="name">subscriber-apply-cpu `, "limit: apply"} {
		if !strings.Contains(out, want) {
			t.Errorf("the page has no %s", want)
		}
	}
	if out, code, _ := run(t, "timeline", "--from-recording", root, "--format", "markdown"); code != ExitUsage || !strings.Contains(out, "text, json or html") {
		t.Errorf("--format markdown: exit %d, %q; want a usage error naming the formats", code, out)
	}
}
