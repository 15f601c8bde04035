package reproduce

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

func TestSummary(t *testing.T) {
	tests := []struct {
		name             string
		in               []float64
		median, min, max float64
	}{
		{"an odd count takes the middle value", []float64{3, 1, 2}, 2, 1, 3},
		{"an even count averages the two middle values", []float64{4, 1, 3, 2}, 2.5, 1, 4},
		{"one run is its own median and spread", []float64{7}, 7, 7, 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, lo, hi := Summary(tc.in)
			if m != tc.median || lo != tc.min || hi != tc.max {
				t.Errorf("Summary(%v) = %v %v %v, want %v %v %v", tc.in, m, lo, hi, tc.median, tc.min, tc.max)
			}
		})
	}
	if m, _, _ := Summary(nil); !math.IsNaN(m) {
		t.Errorf("Summary(nil) median = %v, want NaN", m)
	}
}

func TestNewRatio(t *testing.T) {
	tests := []struct {
		name                string
		seed, measured, tol float64
		caveat              string
		within              bool
		verdict             string
	}{
		{"a ratio inside the tolerance is within", 1.86, 1.70, 0.2, "", true, "within ±20%"},
		{"a ratio outside the tolerance says by how much", 1.86, 1.2, 0.2, "", false, "outside ±20% (-35%)"},
		{"a ratio without tolerance is shown, not checked", 0.24, 0.5, 0, "", false, "shown, not checked"},
		{"a caveat replaces the verdict", 1.85, 0.9, 0.2, "not comparable: 4 apply workers on 1 core here", true, "not comparable: 4 apply workers on 1 core here"},
		{"a missing measurement is not within", 1.99, math.NaN(), 0.2, "", false, "not measured"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRatio("x", tc.seed, tc.measured, tc.tol, tc.caveat)
			if r.Verdict != tc.verdict {
				t.Errorf("verdict %q, want %q", r.Verdict, tc.verdict)
			}
			if tc.caveat == "" && r.Within() != tc.within {
				t.Errorf("Within() = %v, want %v", r.Within(), tc.within)
			}
		})
	}
}

func TestTextShowsSeedBesideMeasurementAndFailures(t *testing.T) {
	tb := &Table{Experiment: "bottleneck", Seed: "000", ServerVersion: "16.14", Runs: 2,
		Sections: []Section{{Title: "3. link", Rows: []Row{NewRow("link 8MB/s: consumed", "10.6", "MB/s", []float64{9.8, 10.2})},
			Ratios: []Ratio{NewRatio("link 16 vs 8 MB/s: consumed", 1.86, 1.9, 0.2, "")}}},
		Caveats:  []string{"2 cores"},
		Failures: []string{"network: subscriber still differs"}}
	var b bytes.Buffer
	if err := Text(&b, tb); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"seed 000 on PostgreSQL 16.14, 2 run(s)", "link 8MB/s: consumed", "10.6", "10.00", "9.80-10.20 (2)", "1.86x", "1.90x", "within ±20%", "2 cores", "FAILED", "subscriber still differs"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	if tb.Row("link 8MB/s: consumed") == nil || tb.Ratio("link 16 vs 8 MB/s: consumed") == nil {
		t.Error("Row/Ratio lookup by name failed")
	}
}

func TestCheckParts(t *testing.T) {
	b, _ := Lookup("bottleneck")
	r, _ := Lookup("replay")
	tests := []struct {
		name string
		e    Experiment
		only []string
		ok   bool
	}{
		{"no parts chosen runs everything", b, nil, true},
		{"a part the experiment has is accepted", b, []string{"link", "ri"}, true},
		{"an unknown part is refused", b, []string{"links"}, false},
		{"an experiment without parts refuses any", r, []string{"link"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.e.CheckParts(tc.only); (err == nil) != tc.ok {
				t.Errorf("CheckParts(%v) = %v, want ok=%v", tc.only, err, tc.ok)
			}
		})
	}
	o := Options{Only: []string{"link"}}
	if !o.part("link") || o.part("layouts") || !(Options{}).part("layouts") {
		t.Error("Options.part does not follow Only")
	}
}
