package model

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/sample"
)

// A gap lowers a verdict's confidence by gapFactor, and by the share of the
// window it left unsampled when that is larger: the fault matrix's frozen
// publisher link answered 1 s of a 6 s window and its caught-up verdict
// kept 0.81.
func TestAGapLowersTheConfidenceByWhatItLeftUnseen(t *testing.T) {
	const file = "../classify/testdata/caught-up-pg16-diag.json"
	full := Classify(Inputs(load(t, file), nil)[0])
	for _, c := range []struct {
		name   string
		gapS   float64
		factor float64
		says   string
	}{
		{"half a second", 0.5, gapFactor, ""},
		{"five sixths of the window", 0, 1.0 / 6, "83% of the window was not sampled"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := load(t, file)
			win := rec.End.Sub(rec.Start)
			gap := time.Duration(c.gapS * float64(time.Second))
			if c.gapS == 0 {
				gap = win * 5 / 6
			}
			from := rec.Start.Add(win / 12)
			// A gap reaching past the window's end counts to its end only.
			rec.Gaps = []sample.Gap{{Side: sample.Publisher, From: from, To: from.Add(gap)}, {Side: sample.Subscriber, From: from, To: from.Add(gap / 10)}}
			if c.gapS == 0 {
				rec.Gaps[0].To = rec.End.Add(time.Minute)
				rec.Gaps[0].From = rec.End.Add(-gap)
			}
			v := Classify(Inputs(rec, nil)[0])
			if v.Name != full.Name {
				t.Fatalf("verdict %s, without the gap %s", v.Name, full.Name)
			}
			if want := math.Round(full.Confidence*c.factor*100) / 100; math.Abs(v.Confidence-want) > 0.011 {
				t.Errorf("confidence %.2f, want %.2f (%.2f without the gap, x %.2f)", v.Confidence, want, full.Confidence, c.factor)
			}
			caveats := strings.Join(v.Caveats, "; ")
			if !strings.Contains(caveats, "2 sampling gap(s)") || (c.says != "" && !strings.Contains(caveats, c.says)) ||
				(c.says == "" && strings.Contains(caveats, "not sampled")) {
				t.Errorf("caveats %q, want the gaps counted and %q", caveats, c.says)
			}
		})
	}
}
