package model

import (
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/sample"
)

func TestCompetingLineQuotesHostileNames(t *testing.T) {
	c := &measure.Competing{CPUs: "0",
		Backends: []measure.BackendLoad{{App: "app\"; DROP\n", User: "u\x1b[31m", Count: 2, Active: 1.5, CPUShare: 0.6}},
		Others:   []measure.ProcLoad{{PID: 42, Comm: "sh", CPUShare: 0.5}}}
	e := competingLine("publisher", "walsender", c)
	if e.Key != EvCompetingLoad || strings.ContainsAny(e.Text, "\n\x1b") {
		t.Fatalf("line %q: want the competing-load key and no raw control characters", e.Text)
	}
	for _, want := range []string{`"app\"; DROP\n"`, `"u\x1b[31m"`, `process "sh" pid 42 (50% of a core)`, "CPUs the walsender may run on (0)", "110% of a core"} {
		if !strings.Contains(e.Text, want) {
			t.Errorf("line %q lacks %q", e.Text, want)
		}
	}
	r := unstarveRemedy("a CPU the walsender does not share", "walsender", c)
	if !strings.Contains(r, "move, limit or give other CPUs to") || !strings.Contains(r, `process "sh" pid 42`) {
		t.Errorf("remedy %q: want what to move named", r)
	}
	if got := unstarveRemedy("base", "walsender", nil); got != "base" {
		t.Errorf("remedy without a reading %q, want the base text", got)
	}
	if e := competingLine("publisher", "walsender", nil); e.Key != "" {
		t.Errorf("not read: line %+v, want none", e)
	}
	noProc := competingLine("subscriber", "apply worker", &measure.Competing{Backends: []measure.BackendLoad{{App: "x", User: "y", Count: 1, Active: 1, CPUShare: -1}}})
	if !strings.Contains(noProc.Text, "1.0 active on average") || !strings.Contains(noProc.Text, "outside PostgreSQL are not seen") {
		t.Errorf("without /proc: %q", noProc.Text)
	}
}

// TestCrowdedPublisherWithoutProcIsStarved turns a starved walsender's
// recording into the run that was called network: its bursts at their bare
// time, 16 pgbench backends active; without /proc it must stay starved, at
// 0.5 or under.
func TestCrowdedPublisherWithoutProcIsStarved(t *testing.T) {
	rec := load(t, "../classify/testdata/walsender-starved-pg15-burst.json")
	var active []sample.ActiveBackend
	for i := range 16 {
		active = append(active, sample.ActiveBackend{PID: 90000 + i, App: "pgbench", User: "lab"})
	}
	crowded := modify(rec, func(_ int, tk *sample.Tick) {
		rd := tk.Edit(sample.PublisherNode)
		if len(rd.Burst) > 0 {
			flat := make([]float64, len(rd.Burst))
			for i := range flat {
				flat[i] = 1
			}
			rd.Burst = flat
		}
		rd.Active = active
	})
	v := Classify(Inputs(crowded.WithoutProc(), nil)[0])
	if v.Name != WalsenderStarved || v.Confidence > 0.5 {
		t.Errorf("crowded, burst at 1.0x: %s at %.2f (evidence %q), want walsender-starved at 0.5 or under", v.Name, v.Confidence, EvidenceTexts(v.Evidence))
	}
	found := false
	for _, e := range v.Evidence {
		found = found || e.Key == EvCompetingLoad && strings.Contains(e.Text, `"pgbench"`)
	}
	if !found {
		t.Errorf("evidence %q: want the pgbench backends named", EvidenceTexts(v.Evidence))
	}
	quiet := modify(rec, func(_ int, tk *sample.Tick) {
		rd := tk.Edit(sample.PublisherNode)
		if len(rd.Burst) > 0 {
			rd.Burst = []float64{1, 1, 1, 1, 1, 1, 1, 1}
		}
		rd.Active = []sample.ActiveBackend{}
	})
	if v := Classify(Inputs(quiet.WithoutProc(), nil)[0]); v.Name == WalsenderStarved {
		t.Errorf("no backend active, burst at 1.0x: %s, want the burst's reading (not starved)", v.Name)
	}
}

func TestSharedSubscriberWithoutProcIsCapped(t *testing.T) {
	if why := sharedNoProc(measure.Contention{Stretch: 3.5, Bursts: 3}, nil, 0); why == "" {
		t.Error("stretch 3.5: want the CPUs called shared")
	}
	if why := sharedNoProc(measure.Contention{Stretch: 2.7, Bursts: 3}, nil, 1.0); why != "" {
		t.Errorf("stretch 2.7 (an apply worker alone): %q, want none", why)
	}
	busy := &measure.Competing{Backends: []measure.BackendLoad{{App: "lab-cpu-hog", Count: 2, Active: 2, CPUShare: -1}}}
	if why := sharedNoProc(measure.Contention{Stretch: 2.7, Bursts: 3}, busy, 0); why == "" {
		t.Error("2 backends active: want the CPUs called shared")
	}
	if why := sharedNoProc(measure.Contention{Stretch: 2.0, Bursts: 3}, nil, 1.46); why == "" {
		t.Error("1.46x the calibrated time per MB: want the CPUs called shared")
	}
	rec := load(t, "../classify/testdata/subscriber-starved-pg18-burst.json")
	if v := Classify(Inputs(rec.WithoutProc(), nil)[0]); v.Name == SubscriberApplyCPU && v.Confidence > 0.5 {
		t.Errorf("subscriber-starved-pg18 without /proc: %s at %.2f, want 0.5 or under", v.Name, v.Confidence)
	}
}
