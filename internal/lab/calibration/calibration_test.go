package calibration

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/sample"
)

func TestLabelComesFromTheFileName(t *testing.T) {
	for in, want := range map[string]string{
		"/tmp/diag-network-8mbps-pg15.18-1796099984.json": "network-8mbps",
		"testdata/walsender-starved-pg16-diag.json":       "walsender-starved",
		"odd.json": "odd",
	} {
		if got := Label(in); got != want {
			t.Errorf("Label(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRankCorrelation(t *testing.T) {
	var ps []Point
	for i, c := range []struct{ runq, stretch float64 }{{0.1, 1.5}, {0.2, 1.4}, {0.5, 3}, {0.9, 12}} {
		ps = append(ps, Point{Label: string(rune('a' + i)), Runq: c.runq, Contention: measure.Contention{Stretch: c.stretch}})
	}
	if r := spearman(ps, func(p Point) float64 { return p.Stretch }); math.Abs(r-0.8) > 1e-9 {
		t.Errorf("spearman = %v, want 0.8 (one swapped pair of four)", r)
	}
	if r := spearman(ps[:2], func(p Point) float64 { return p.Stretch }); !math.IsNaN(r) {
		t.Errorf("spearman of 2 points = %v, want NaN", r)
	}
}

func TestPointsNeedProcAndBursts(t *testing.T) {
	t0 := time.Unix(1000, 0)
	rec := &sample.Recording{Nodes: sample.PairNodes(sample.Server{Version: "16.14"}, nil), Ticks: []sample.Tick{
		{At: t0, Reads: []sample.Read{{Node: sample.PublisherNode, OK: true, Burst: []float64{1, 1, 1, 1}, Slots: []sample.Slot{{Name: "s", Active: true, ActivePID: 7}}}}, Procs: []sample.ProcStat{{Side: sample.Publisher, PID: 7, Role: sample.RoleWalsender}}},
		{At: t0.Add(time.Second), Reads: []sample.Read{{Node: sample.PublisherNode, OK: true, Burst: []float64{1, 5, 1, 1}, Slots: []sample.Slot{{Name: "s", Active: true, ActivePID: 7}}}}, Procs: []sample.ProcStat{{Side: sample.Publisher, PID: 7, Role: sample.RoleWalsender, CPUNs: 2e8, RunqNs: 6e8}}},
	}}
	ps := Points("x", rec)
	if len(ps) != 1 || ps[0].Role != sample.RoleWalsender || math.Abs(ps[0].Runq-0.6) > 1e-6 || ps[0].Stretch != 1.5 {
		t.Fatalf("points %+v, want the walsender at run queue 0.6, stretch 1.5", ps)
	}
	if ps := Points("x", rec.WithoutProc()); len(ps) != 0 {
		t.Errorf("points without /proc: %+v, want none", ps)
	}
	var b strings.Builder
	if err := Markdown(&b, ps); err != nil || !strings.Contains(b.String(), "| publisher | x | 16.14 | 1 | 60% | 20% | 1.50x |") {
		t.Errorf("table:\n%s", b.String())
	}
	b.Reset()
	if err := PlotSVG(&b, ps); err != nil || !strings.HasPrefix(b.String(), "<?xml") || !strings.Contains(b.String(), "<svg") {
		t.Errorf("svg (%v): %.200s", err, b.String())
	}
}
