package proxy

import (
	"bytes"
	"strings"
	"testing"
)

func TestSpreadOf(t *testing.T) {
	tests := []struct {
		name string
		in   []float64
		want Spread
	}{
		{"one value is its own median, minimum and maximum", []float64{3}, Spread{Median: 3, Min: 3, Max: 3}},
		{"an odd count takes the middle value", []float64{5, 1, 3}, Spread{Median: 3, Min: 1, Max: 5}},
		{"an even count averages the middle two", []float64{4, 1, 2, 10}, Spread{Median: 3, Min: 1, Max: 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SpreadOf(tt.in); got != tt.want {
				t.Errorf("SpreadOf(%v) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestRenderBench(t *testing.T) {
	limited := summarise(8_000_000, []BenchRun{{BenchResult: BenchResult{Target: 8_000_000, Measured: 7_980_000, ErrorPct: -0.25}}})
	unlimited := summarise(0, []BenchRun{
		{BenchResult: BenchResult{Measured: 2e9, Direct: 2.5e9, Ratio: 0.8}, HostCores: 1.9, SelfCores: 1.8},
		{BenchResult: BenchResult{Measured: 1.8e9, Direct: 2.4e9, Ratio: 0.75}, HostCores: 2, SelfCores: 1.5},
		{BenchResult: BenchResult{Measured: 2.1e9, Direct: 2.5e9, Ratio: 0.84}, HostCores: 1.7, SelfCores: 1.7},
	})
	tests := []struct {
		name string
		rep  BenchReport
		want []string
	}{
		{"one limited run prints target, measured rate and error",
			BenchReport{DurationS: 10, Repeat: 1, Rows: []BenchRow{limited}},
			[]string{"target 8MB/s", "measured 7.980 MB/s", "error -0.25%"}},
		{"one unlimited run prints both rates and the ratio",
			BenchReport{DurationS: 10, Repeat: 1, Rows: []BenchRow{summarise(0, unlimited.Runs[:1])}},
			[]string{"2000 MB/s through the proxy", "2500 MB/s direct", "ratio 0.80 (80% of direct)"}},
		{"repeated runs print a table of medians and spreads",
			BenchReport{DurationS: 10, Repeat: 3, CPUs: 2, Rows: []BenchRow{unlimited}},
			[]string{"TARGET", "unlimited", "2000 [1800 .. 2100]", "0.80 [0.75 .. 0.84]", "0.10 [0.00 .. 0.50]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := RenderBench(&b, tt.rep); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, b.String())
				}
			}
		})
	}
}
