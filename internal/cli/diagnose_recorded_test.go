package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/recorder"
	"github.com/lagscope/lagscope/internal/sample"
)

// A recording of a saved window, written in steps, gives back the verdict
// the saved window gives, over --between and --at; a window outside it
// says the recorded range.
func TestAWindowOfARecordingGetsTheVerdictOfTheSameSamples(t *testing.T) {
	samples := "../classify/testdata/apply-bound-pg16-diag.json"
	f, err := os.Open(samples)
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
	// Two steps, as the monitor would write them.
	mid := rec.Ticks[len(rec.Ticks)/2].At
	for _, s := range []*sample.Recording{part(rec, rec.Start, mid), part(rec, mid, rec.End)} {
		if err := w.Step(s, rec.Setup, rec.SetupError); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	want, _, _ := run(t, "diagnose", "--from-samples", samples, "--format", "json")
	verdict := between(want, `"verdict": "`, `"`)
	if verdict == "" {
		t.Fatalf("no verdict in the saved samples' report")
	}
	span := rec.Start.UTC().Format(time.RFC3339Nano) + "," + rec.End.Add(time.Second).UTC().Format(time.RFC3339Nano)
	for _, args := range [][]string{
		{"diagnose", "--from-recording", root, "--between", span, "--format", "json"},
		{"diagnose", "--from-recording", filepath.Join(root, "orders"), "--at", mid.UTC().Format(time.RFC3339Nano), "--window", "12s", "--format", "json"},
	} {
		out, code, _ := run(t, args...)
		if got := between(out, `"verdict": "`, `"`); got != verdict || code == ExitUsage {
			t.Errorf("%s: exit %d, verdict %q, want %q:\n%.400s", strings.Join(args, " "), code, got, verdict, out)
		}
		if !strings.Contains(out, `"rebuilt_from"`) {
			t.Errorf("%s: the report does not say it was rebuilt from the recording", strings.Join(args, " "))
		}
	}
	// The whole report is the saved samples' (but for the line naming
	// where it was rebuilt from).
	text, _, _ := run(t, "diagnose", "--from-samples", samples)
	again, _, _ := run(t, "diagnose", "--from-recording", root, "--between", span)
	if noSource(text) != noSource(again) {
		t.Errorf("the recording's report differs from the saved samples':\n%s\n---\n%s", text, again)
	}
	out, code, _ := run(t, "diagnose", "--from-recording", root, "--at", rec.Start.Add(-time.Hour).UTC().Format(time.RFC3339))
	if code != ExitUsage || !strings.Contains(out, "nothing recorded") || !strings.Contains(out, "covers") {
		t.Errorf("a window before the recording: exit %d, %q; want a usage error naming the recorded range", code, out)
	}
	out, code, _ = run(t, "diagnose", "--from-recording", root)
	if code != ExitUsage || !strings.Contains(out, "--at") {
		t.Errorf("no window: exit %d, %q", code, out)
	}
}

// part is rec's samples in [from, to), as one step.
func part(rec *sample.Recording, from, to time.Time) *sample.Recording {
	s := &sample.Recording{Version: rec.Version, Nodes: rec.Nodes, Start: from, End: to}
	for _, tk := range rec.Ticks {
		if !tk.At.Before(from) && tk.At.Before(to) {
			s.Ticks = append(s.Ticks, tk)
		}
	}
	for _, p := range rec.Probes {
		if !p.At.Before(from) && p.At.Before(to) {
			s.Probes = append(s.Probes, p)
		}
	}
	return s
}

// noSource is a text report without its "rebuilt from" line, however it
// wrapped.
func noSource(s string) string {
	return regexp.MustCompile(`(?s)rebuilt from\s.*?advises\n`).ReplaceAllString(s, "")
}
