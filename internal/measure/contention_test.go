package measure

import (
	"math"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/sample"
)

func TestContentionStretchIsTheBurstsOverTheirBarePieces(t *testing.T) {
	t0 := time.Unix(1000, 0)
	late := func(ms float64) *float64 { return &ms }
	rec := &sample.Recording{
		Subscriber: &sample.Server{},
		Ticks: []sample.Tick{
			{At: t0, PubOK: true, SubOK: true, PubBurst: []float64{1, 1, 1, 1}},
			{At: t0.Add(time.Second), PubOK: true, SubOK: true},
			{At: t0.Add(2 * time.Second), PubOK: true, SubOK: true, PubBurst: []float64{1, 9, 1, 1}, SubBurst: []float64{2, 2, 2, 2}},
		},
		Probes: []sample.Probe{
			{At: t0.Add(100 * time.Millisecond), Side: sample.Publisher, LateMS: late(0.5)},
			{At: t0.Add(200 * time.Millisecond), Side: sample.Publisher, LateMS: late(0.7)},
			{At: t0.Add(300 * time.Millisecond), Side: sample.Publisher}, // did not sleep
			{At: t0.Add(400 * time.Millisecond), Side: sample.Publisher, LateMS: late(4)},
			{At: t0.Add(5 * time.Second), Side: sample.Publisher, LateMS: late(100)}, // after the window
		},
	}
	s := Summarise(rec, Filter{})
	// 16 ms over 8 pieces of 1 ms bare: 2x.
	if p := s.PubCPU; p.Bursts != 2 || p.BareMS != 1 || math.Abs(p.Stretch-2) > 1e-9 {
		t.Errorf("publisher %+v, want 2 bursts, bare 1 ms, stretch 2", p)
	}
	if p := s.PubCPU; p.LateProbes != 3 || p.LateMedianMS != 0.7 || p.LateP90MS != 4 {
		t.Errorf("publisher lateness %+v, want 3 probes, median 0.7, p90 4", p)
	}
	// Evenly slow pieces are the bare cost of a slower CPU, not contention.
	if c := s.SubCPU; c.Bursts != 1 || c.Stretch != 1 || c.RunqEstimate() != 0 {
		t.Errorf("subscriber %+v, want 1 burst at stretch 1", c)
	}
	old := Summarise(&sample.Recording{Ticks: rec.Ticks[1:2]}, Filter{})
	if old.PubCPU.Known() || old.PubCPU.RunqEstimate() != -1 {
		t.Errorf("no ticks: %+v, want unknown", old.PubCPU)
	}
}
