package timeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/recorder"
	"github.com/lagscope/lagscope/internal/sample"
)

func TestConsecutiveWindowsOfOneFindingAreOneIncident(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 3, 0, 0, 0, time.UTC)
	w := func(i int, v model.VerdictName, lag int64) Window {
		return Window{From: t0.Add(time.Duration(i) * 30 * time.Second), To: t0.Add(time.Duration(i+1) * 30 * time.Second), Slot: "s", Verdict: v, LagBytes: lag, Confidence: 0.9}
	}
	gap := w(6, "", 0)
	gap.Gap = "not sampled: subscriber: connection refused"
	ws := []Window{
		w(0, model.CaughtUp, 0),
		w(1, model.SubscriberApplyCPU, 10), w(2, model.SubscriberApplyCPU, 30), w(3, model.SubscriberApplyCPU, 20),
		w(4, model.Network, 40),
		w(5, model.Network, 50), gap,
		w(7, model.CaughtUp, 0),
		w(8, model.WalsenderStarved, 5),
	}
	got := Incidents(ws)
	want := []struct {
		v      model.VerdictName
		start  int
		n      int
		peak   int64
		ended  string
		thenIs string
	}{
		{model.SubscriberApplyCPU, 1, 3, 30, EndedChanged, string(model.Network)},
		{model.Network, 4, 2, 50, EndedGap, "connection refused"},
		{model.WalsenderStarved, 8, 1, 5, EndedOngoing, ""},
	}
	if len(got) != len(want) {
		t.Fatalf("%d incidents, want %d: %+v", len(got), len(want), got)
	}
	for i, c := range want {
		g := got[i]
		if g.Verdict != c.v || !g.Start.Equal(ws[c.start].From) || g.Windows != c.n || g.PeakLagBytes != c.peak || g.Ended != c.ended || !strings.Contains(g.Then, c.thenIs) {
			t.Errorf("incident %d: %+v, want %s from window %d, %d windows, peak %d, ended %s (%s)", i, g, c.v, c.start, c.n, c.peak, c.ended, c.thenIs)
		}
	}
}

func TestARecordedBacklogIsAnIncidentOfItsVerdict(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "classify", "testdata", "apply-bound-pg16-diag.json"))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := sample.ReadRecording(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "rec")
	w, err := recorder.Open(recorder.Options{Dir: dir, RetainAge: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Step(rec, rec.Setup, rec.SetupError); err != nil {
		t.Fatal(err)
	}
	w.Close()
	tl, err := Read(dir, rec.Start, rec.End.Add(time.Millisecond), rec.End.Sub(rec.Start)+time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Incidents) != 1 || tl.Incidents[0].Verdict != model.SubscriberApplyCPU || tl.Incidents[0].Ended != EndedOngoing {
		t.Fatalf("incidents %+v: want one subscriber-apply-cpu incident still on", tl.Incidents)
	}
	// A sliver at the end (under half a window) is not judged.
	tl, err = Read(dir, rec.Start, rec.End.Add(time.Millisecond), 9*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if tl.Windows != 1 || len(tl.Incidents) != 1 || tl.Incidents[0].Windows != 1 {
		t.Fatalf("10 s in windows of 9 s: %d windows judged, incidents %+v; want the first alone (the 1-s rest is under half a window)", tl.Windows, tl.Incidents)
	}
	var b strings.Builder
	if err := Text(&b, tl, time.UTC); err != nil || !strings.Contains(b.String(), "subscriber-apply-cpu") {
		t.Fatalf("text: %v\n%s", err, b.String())
	}
}
