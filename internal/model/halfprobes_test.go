package model

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/testkit/recordings"
)

// TestHalfTheProbesKeepEveryVerdict backs diagnose's default probe rate
// where /proc is read (sample.ProcProbeHz, half of the 20 Hz the
// recordings were made at): every recording, its probes of each side with
// /proc figures thinned to every other one, is classified as the lab's
// state says, with a confidence within maxDrift of the full rate's (the
// largest drift measured when the default was set: 0.08, a large
// transaction on 18).
func TestHalfTheProbesKeepEveryVerdict(t *testing.T) {
	const maxDrift = 0.1
	exps, err := recordings.Load("../classify/testdata")
	if err != nil {
		t.Fatal(err)
	}
	thinned := 0
	for _, e := range exps {
		t.Run(filepath.Base(e.File), func(t *testing.T) {
			full, i := judged(t, e)
			v0 := Classify(full)
			rec := load(t, e.File)
			if n := thinProcSides(rec); n == 0 {
				return
			}
			thinned++
			v := Classify(Inputs(rec, nil)[i])
			if string(v.Name) != e.Verdict {
				t.Errorf("at half the probes: verdict %s (%.2f), want %s (at the full rate %s %.2f)", v.Name, v.Confidence, e.Verdict, v0.Name, v0.Confidence)
			}
			if d := v.Confidence - v0.Confidence; math.Abs(d) > maxDrift {
				t.Errorf("at half the probes: confidence %.2f, at the full rate %.2f (a drift over %.2f)", v.Confidence, v0.Confidence, maxDrift)
			}
		})
	}
	t.Logf("%d of %d recordings thinned", thinned, len(exps))
	if thinned < len(exps)/2 {
		t.Errorf("only %d of %d recordings had a side with /proc figures to thin", thinned, len(exps))
	}
}

// thinProcSides drops every other probe of each side whose /proc figures
// the recording has, and returns how many it dropped.
func thinProcSides(rec *sample.Recording) int {
	proc := map[string]bool{sample.Publisher: rec.Server(sample.PublisherNode).ProcUnavailable == ""}
	if rec.Server(sample.SubscriberNode) != nil {
		proc[sample.Subscriber] = rec.Server(sample.SubscriberNode).ProcUnavailable == ""
	}
	seen := map[string]int{}
	var kept []sample.Probe
	for _, p := range rec.Probes {
		n := seen[p.Side]
		seen[p.Side]++
		if proc[p.Side] && n%2 == 1 {
			continue
		}
		kept = append(kept, p)
	}
	dropped := len(rec.Probes) - len(kept)
	rec.Probes = kept
	return dropped
}
