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
	rec := &sample.Recording{Nodes: sample.PairNodes(sample.Server{}, &sample.Server{}), Ticks: []sample.Tick{
		{At: t0, Reads: []sample.Read{{Node: sample.PublisherNode, OK: true, Burst: []float64{1, 1, 1, 1}}, {Node: sample.SubscriberNode, OK: true}}},
		{At: t0.Add(time.Second), Reads: []sample.Read{{Node: sample.PublisherNode, OK: true}, {Node: sample.SubscriberNode, OK: true}}},
		{At: t0.Add(2 * time.Second), Reads: []sample.Read{{Node: sample.PublisherNode, OK: true, Burst: []float64{1, 9, 1, 1}}, {Node: sample.SubscriberNode, OK: true, Burst: []float64{2, 2, 2, 2}}}},
	}, Probes: []sample.Probe{
		{At: t0.Add(100 * time.Millisecond), Side: sample.Publisher, LateMS: late(0.5)},
		{At: t0.Add(200 * time.Millisecond), Side: sample.Publisher, LateMS: late(0.7)},
		{At: t0.Add(300 * time.Millisecond), Side: sample.Publisher}, // did not sleep
		{At: t0.Add(400 * time.Millisecond), Side: sample.Publisher, LateMS: late(4)},
		{At: t0.Add(5 * time.Second), Side: sample.Publisher, LateMS: late(100)}, // after the window
	}}
	s := Summarise(rec, Filter{})
	// Bursts of 1x and 3x (12 ms over 4 pieces of 1 ms bare): median 2x.
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

// TestOneStallDoesNotMakeACPUSaturated takes the bursts of a recorded
// network-8mbps run on 15.18 (the lab's link, publisher idle) in which one
// piece stalled 91 ms: pooled, the bursts come to 6.9x their bare time, as
// if the publisher were saturated; their median stays at 1.5x. A starved
// walsender's publisher (walsender-starved, 15.18) stalls most bursts.
func TestOneStallDoesNotMakeACPUSaturated(t *testing.T) {
	stretch := func(bursts ...[]float64) float64 {
		t0 := time.Unix(1000, 0)
		var ticks []sample.Tick
		for i, b := range bursts {
			ticks = append(ticks, sample.Tick{At: t0.Add(time.Duration(i) * time.Second), Reads: []sample.Read{{Node: sample.PublisherNode, OK: true, Burst: b}}})
		}
		return Summarise(&sample.Recording{Ticks: ticks}, Filter{}).PubCPU.Stretch
	}
	idle := stretch([]float64{1.14, 91.22, 10.56, 1.92}, []float64{0.96, 1.08, 1.0, 1.06}, []float64{1.1, 4.96, 1.75, 4.7},
		[]float64{1.19, 1.17, 1.19, 2.31}, []float64{1.26, 1.21, 1.2, 1.23})
	starved := stretch([]float64{0.8, 39.12, 0.93, 26.27}, []float64{1.28, 1.07, 0.94, 0.91}, []float64{23.81, 24.8, 1.26, 1.15},
		[]float64{1.18, 1.21, 64.32, 1.36}, []float64{1.23, 1.15, 1.24, 78.95})
	if idle > 2 || starved < 15 {
		t.Errorf("stretch %.2f beside the link, %.2f beside 16 clients: want under 2 and over 15", idle, starved)
	}
}
