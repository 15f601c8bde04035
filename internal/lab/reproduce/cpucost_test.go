package reproduce

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// sampleCPUCost is two runs shaped like seed 001's figures.
func sampleCPUCost(major int, riNoIndex, riIndex float64) cpuCostMeasurements {
	return cpuCostMeasurements{
		Runs: 2, Major: major, PubCPUs: []int{0}, SubCPUs: []int{1},
		Scenarios: map[string][]cpuRun{
			"no consumer":         {{PubCPU: 4, Drain: 0.02, SubWAL: math.NaN()}, {PubCPU: 5, Drain: 0.04, SubWAL: math.NaN()}},
			"decode to /dev/null": {{PubCPU: 6, Drain: 4, SubWAL: math.NaN()}, {PubCPU: 8, Drain: 5, SubWAL: math.NaN()}},
			"apply text, PK only": {{PubCPU: 7, SubCPU: 3, Drain: 2, SubWAL: 100, WALSource: walFromStats},
				{PubCPU: 8, SubCPU: 3, Drain: 3, SubWAL: 110, WALSource: walFromStats}},
			"apply binary, PK only": {{PubCPU: 7, SubCPU: 2.5, Drain: 2, SubWAL: 100, WALSource: walFromStats},
				{PubCPU: 8, SubCPU: 2.9, Drain: 2, SubWAL: 110, WALSource: walFromStats}},
			"apply text, 4 extra indexes": {{PubCPU: 6, SubCPU: 4.5, Drain: 3, SubWAL: 200, WALSource: walFromStats},
				{PubCPU: 6, SubCPU: 4.9, Drain: 4, SubWAL: 220, WALSource: walFromLSN}},
		},
		RIFull: map[bool][]float64{false: {riNoIndex, riNoIndex}, true: {riIndex, riIndex}},
	}
}

func TestCPUCostTableHasEveryRowAndRatioByName(t *testing.T) {
	tab := sampleCPUCost(16, 4.6, 0.15).table()
	if len(tab.Sections) != 3 {
		t.Fatalf("%d sections, want 3", len(tab.Sections))
	}
	for _, sc := range cpuScenarios {
		for _, what := range []string{rowPubCPU, rowSubCPU, rowTotalCPU, rowVsBase, rowDrain} {
			if tab.Row(cpuRowName(sc.Name, what)) == nil {
				t.Errorf("row %q missing", cpuRowName(sc.Name, what))
			}
		}
		if hasWAL := tab.Row(cpuRowName(sc.Name, rowSubWAL)) != nil; hasWAL != (sc.Consumer == applySub) {
			t.Errorf("%s: subscriber WAL row present = %t", sc.Name, hasWAL)
		}
	}
	for _, name := range []string{"no consumer: total CPU", "apply text, 4 extra indexes: subscriber WAL",
		"RI FULL, no index: apply time", "RI FULL, btree on id: apply time"} {
		if tab.Row(name) == nil {
			t.Errorf("row %q missing", name)
		}
	}
	for _, name := range []string{ratioDecodeTotal, ratioApplyTotal, ratioBinarySubCPU, ratioIndexSubCPU, ratioBinaryWAL,
		"4 extra indexes vs PK only: subscriber WAL", "RI FULL: index vs no index (apply time)"} {
		if tab.Ratio(name) == nil {
			t.Errorf("ratio %q missing", name)
		}
	}
}

func TestCPUCostTableSummarisesRuns(t *testing.T) {
	tab := sampleCPUCost(16, 4.6, 0.15).table()
	cases := []struct {
		name string
		row  string
		want float64
	}{
		{"the total is publisher plus subscriber per run, then the median", "apply text, PK only: total CPU", 10.5},
		{"a scenario without a subscriber has zero subscriber CPU", "decode to /dev/null: subscriber CPU", 0},
		{"vs baseline divides each run by the same run's baseline", "decode to /dev/null: vs baseline", (6.0/4 + 8.0/5) / 2},
		{"the baseline is 1x against itself", "no consumer: vs baseline", 1},
		{"subscriber WAL is the median of the runs", "apply text, 4 extra indexes: subscriber WAL", 210},
		{"the RI FULL apply time is the median of the runs", "RI FULL, no index: apply time", 4.6},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := tab.Row(c.row)
			if r == nil {
				t.Fatalf("row %q missing", c.row)
			}
			if math.Abs(r.Median-c.want) > 1e-9 {
				t.Errorf("%s median = %v, want %v", c.row, r.Median, c.want)
			}
		})
	}
}

func TestCPUCostRatios(t *testing.T) {
	cases := []struct {
		name       string
		m          cpuCostMeasurements
		ratio      string
		want       float64
		within     bool
		verdictHas string
	}{
		{"four extra indexes doubling the subscriber WAL holds", sampleCPUCost(16, 4.6, 0.15),
			ratioIndexWAL, 2, true, "within"},
		{"binary and text writing the same WAL holds", sampleCPUCost(16, 4.6, 0.15),
			ratioBinaryWAL, 1, true, "within"},
		{"a 30x RI FULL speed-up on 16 holds", sampleCPUCost(16, 4.6, 0.15),
			ratioRIFull, 0.15 / 4.6, true, "31x faster"},
		{"a 100x RI FULL speed-up on 16 holds too: the bound is one-sided", sampleCPUCost(16, 4.6, 0.046),
			ratioRIFull, 0.01, true, "holds"},
		{"a 5x RI FULL speed-up on 16 is below the bound", sampleCPUCost(16, 4.6, 0.92),
			ratioRIFull, 0.2, false, "below 10x"},
		{"a 9x RI FULL speed-up on 16 is below the bound", sampleCPUCost(16, 4.5, 0.5),
			ratioRIFull, 0.5 / 4.5, false, "below 10x"},
		{"on 15 the RI FULL ratio is shown but not comparable", sampleCPUCost(15, 4.6, 4.6),
			ratioRIFull, 1, false, "not comparable"},
		{"CPU ratios are shown, not checked", sampleCPUCost(16, 4.6, 0.15),
			ratioDecodeTotal, 7.0 / 4.5, false, "shown"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := c.m.table().Ratio(c.ratio)
			if r == nil {
				t.Fatalf("ratio %q missing", c.ratio)
			}
			if math.Abs(r.Measured-c.want) > 1e-6 {
				t.Errorf("measured %v, want %v", r.Measured, c.want)
			}
			if r.Within() != c.within {
				t.Errorf("Within() = %t, want %t (verdict %q)", r.Within(), c.within, r.Verdict)
			}
			if !strings.Contains(r.Verdict, c.verdictHas) {
				t.Errorf("verdict %q does not say %q", r.Verdict, c.verdictHas)
			}
		})
	}
}

func TestCPUCostCaveatsAndFailures(t *testing.T) {
	m := sampleCPUCost(15, 4.6, 4.6)
	m.addFailure("")
	m.addFailure("apply text, PK only, run 2: data differ")
	tab := m.table()
	if len(tab.Failures) != 1 {
		t.Errorf("failures = %q, want the one non-empty line", tab.Failures)
	}
	all := strings.Join(tab.Caveats, "\n")
	for _, want := range []string{"seed had 10 cores", "CPU 0", "pglogrepl", "PostgreSQL 15 here", "16 added it"} {
		if !strings.Contains(all, want) {
			t.Errorf("caveats do not mention %q:\n%s", want, all)
		}
	}
	if !strings.Contains(strings.Join(tab.Sections[1].Notes, "\n"), "WAL position difference") {
		t.Errorf("the WAL section does not say that a run fell back to the WAL position: %q", tab.Sections[1].Notes)
	}
	if strings.Contains(strings.Join(sampleCPUCost(18, 4.6, 0.15).table().Caveats, "\n"), "PostgreSQL 18 here") {
		t.Error("a caveat about the version on the seed's own version")
	}
}

func TestCPUCostTableWithoutRunsRendersDashes(t *testing.T) {
	m := cpuCostMeasurements{Runs: 1, Scenarios: map[string][]cpuRun{}, RIFull: map[bool][]float64{}}
	tab := m.table()
	if r := tab.Ratio(ratioIndexWAL); r == nil || r.Within() || r.Verdict != "not measured" {
		t.Errorf("ratio without runs = %+v, want not measured", r)
	}
	var b strings.Builder
	if err := Text(&b, tab); err != nil {
		t.Fatal(err)
	}
}

func TestPollUntil(t *testing.T) {
	ctx := context.Background()
	n := 0
	if _, err := pollUntil(ctx, time.Millisecond, time.Second, "third call", func(context.Context) (bool, error) {
		n++
		return n == 3, nil
	}); err != nil || n != 3 {
		t.Errorf("pollUntil = %v after %d calls, want success after 3", err, n)
	}
	_, err := pollUntil(ctx, time.Millisecond, 5*time.Millisecond, "never", func(context.Context) (bool, error) { return false, nil })
	if err == nil || !strings.Contains(err.Error(), "never did not happen") {
		t.Errorf("timeout error = %v", err)
	}
	boom := errors.New("boom")
	if _, err := pollUntil(ctx, time.Millisecond, time.Second, "x", func(context.Context) (bool, error) { return false, boom }); !errors.Is(err, boom) {
		t.Errorf("error = %v, want it to wrap boom", err)
	}
}
