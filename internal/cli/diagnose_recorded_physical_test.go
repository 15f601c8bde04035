package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/recorder"
	"github.com/lagscope/lagscope/internal/sample"
)

// A physical standby's recording (as 'record --standby' or 'exporter
// --record' writes a physical pair's steps) gives the physical report
// from --from-recording: the 18.4 replay-paused lab window, written in two
// steps, is replay-paused with its lag per stage and catch-up forecast, as
// --from-samples says of the same samples; --slot is refused in one line.
func TestAPhysicalRecordingGetsThePhysicalReport(t *testing.T) {
	samples := "../classify/testdata/physical/replay-paused-pg18-diag.json"
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
	w, err := recorder.Open(recorder.Options{Dir: filepath.Join(root, "replica"), RetainAge: -1})
	if err != nil {
		t.Fatal(err)
	}
	mid := rec.Ticks[len(rec.Ticks)/2].At
	for _, s := range []*sample.Recording{part(rec, rec.Start, mid), part(rec, mid, rec.End)} {
		if err := w.Step(s, nil, ""); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	span := rec.Start.UTC().Format(time.RFC3339Nano) + "," + rec.End.Add(time.Second).UTC().Format(time.RFC3339Nano)
	out, code, _ := run(t, "diagnose", "--from-recording", root, "--between", span, "--format", "json")
	if code != 0 && code != ExitFinding {
		t.Fatalf("exit %d: %s", code, out)
	}
	for _, want := range []string{`"physical_paths"`, `"verdict": "replay-paused"`, `"lag_per_stage"`, `"catch_up": "never at this rate`, `"rebuilt_from"`} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %s:\n%.600s", want, out)
		}
	}
	saved, _, _ := run(t, "diagnose", "--from-samples", samples, "--format", "json")
	if got, want := between(out, `"verdict": "`, `"`), between(saved, `"verdict": "`, `"`); got != want {
		t.Errorf("verdict %q from the recording, %q from the same samples", got, want)
	}
	out, code, _ = run(t, "diagnose", "--from-recording", root, "--between", span, "--slot", "s")
	if code != ExitUsage || !strings.Contains(out, "physical standby's") {
		t.Errorf("--slot on a physical recording: exit %d, %s", code, out)
	}
}

// record and watch take --primary/--standby, and refuse them beside
// --publisher.
func TestRecordAndWatchTakeAPhysicalStandby(t *testing.T) {
	for _, args := range [][]string{
		{"record", "--standby", "host=/nonexistent", "--primary", "host=/x", "--publisher", "host=/y", "--dir", t.TempDir()},
		{"watch", "--standby", "host=/nonexistent", "--publisher", "host=/y", "--plain"},
	} {
		out, code, _ := run(t, args...)
		if code != ExitUsage || !strings.Contains(out, "--primary and --standby diagnose a physical standby") {
			t.Errorf("%s: exit %d, %s", strings.Join(args, " "), code, out)
		}
	}
}
