package model

import (
	"fmt"
	"io"
	"strings"

	"github.com/lagscope/lagscope/internal/median"
	"github.com/lagscope/lagscope/internal/units"
)

// Check is one prediction met by a measurement: a window diagnosed, the
// change made, a second window measured ('lagscope lab whatif').
type Check struct {
	Scenario string `json:"scenario"`
	Change   string `json:"change"`
	Version  string `json:"server_version"`
	// Verdict is the first window's, After the second's.
	Verdict VerdictName `json:"verdict"`
	After   VerdictName `json:"verdict_after"`
	// Today, Predicted and Measured are drain rates, bytes/s: the first
	// window's, the prediction from it, and the second window's.
	Today     float64 `json:"today_bytes_per_s"`
	Predicted float64 `json:"predicted_bytes_per_s"`
	Measured  float64 `json:"measured_bytes_per_s"`
	// Ratio is Measured / Predicted (1 = the prediction held).
	Ratio     float64   `json:"measured_over_predicted"`
	LimitedBy StageName `json:"predicted_limit"`
	Model     string    `json:"model"`
	// StagesBefore and StagesAfter are each window's stage utilisations
	// ("walsender 45%, apply 57%"), to see which stage took the limit.
	StagesBefore string `json:"stages_before"`
	StagesAfter  string `json:"stages_after"`
	// RanOut says the backlog drained before the second window ended,
	// in DrainedS seconds from the change: Measured is its backlog over
	// that time.
	RanOut   bool    `json:"backlog_drained,omitempty"`
	DrainedS float64 `json:"measured_over_s"`
	// RowsBefore and RowsAfter are the rows the subscriber's tables
	// changed per second in each diagnose window (0 when not read): with
	// the stage utilisations they give the apply worker's time per row.
	RowsBefore float64 `json:"rows_per_s_before,omitempty"`
	RowsAfter  float64 `json:"rows_per_s_after,omitempty"`
	// ApplyCostBefore and ApplyCostAfter are the apply worker's time per
	// MB of WAL the subscriber wrote in each window, ms (0 when the
	// subscriber's WAL was not read): Calibration.ApplyCostPerWAL's measure.
	ApplyCostBefore float64 `json:"apply_ms_per_sub_wal_mb_before,omitempty"`
	ApplyCostAfter  float64 `json:"apply_ms_per_sub_wal_mb_after,omitempty"`
}

// Utilisations is "walsender 45%, apply 57%": each measured stage's
// utilisation, in pipeline order.
func Utilisations(stages []Stage) string {
	var out []string
	for _, s := range stages {
		if s.Known() {
			out = append(out, string(s.Name)+" "+units.Percent(s.Utilisation))
		}
	}
	return strings.Join(out, ", ")
}

// NewCheck pairs a prediction with what the second window measured.
func NewCheck(scenario, version string, verdict, after VerdictName, today float64, p Prediction, measured float64, ranOut bool) Check {
	c := Check{Scenario: scenario, Change: p.Change, Version: version, Verdict: verdict, After: after, Today: today,
		Predicted: p.Drain, Measured: measured, LimitedBy: p.LimitedBy, Model: p.Model, RanOut: ranOut}
	if p.Drain > 0 {
		c.Ratio = measured / p.Drain
	}
	return c
}

// Checks is a set of runs of one change, with the spread of their ratios.
type Checks struct {
	Runs []Check `json:"runs"`
	// Median, Min and Max are of the runs' Ratio.
	Median float64 `json:"median_ratio"`
	Min    float64 `json:"min_ratio"`
	Max    float64 `json:"max_ratio"`
	// Failed says why the runs that gave no measurement did not (the state
	// came out otherwise, no prediction was offered).
	Failed []string `json:"failed_runs,omitempty"`
}

// Summarise computes the spread of the runs' ratios.
func Summarise(runs []Check) Checks {
	out := Checks{Runs: runs}
	var r []float64
	for _, c := range runs {
		r = append(r, c.Ratio)
	}
	if len(r) > 0 {
		sp := median.SpreadOf(r)
		out.Median, out.Min, out.Max = sp.Median, sp.Min, sp.Max
	}
	return out
}

// Text writes the runs as a table and their spread.
func (cs Checks) Text(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%-4s %-9s %-22s %10s %10s %10s %7s  %s\n", "run", "server", "verdict -> after", "today", "predicted", "measured", "ratio", "predicted limit")
	for i, c := range cs.Runs {
		note := ""
		if c.RanOut {
			note = fmt.Sprintf(" (the backlog drained %s after the change)", units.FormatSeconds(c.DrainedS))
		}
		fmt.Fprintf(&b, "%-4d %-9s %-22s %10s %10s %10s %6.2fx  %s%s\n", i+1, c.Version, c.Verdict+" -> "+c.After,
			units.FormatRate(c.Today), units.FormatRate(c.Predicted), units.FormatRate(c.Measured), c.Ratio, c.LimitedBy, note)
		fmt.Fprintf(&b, "     stages before: %s; after: %s\n", c.StagesBefore, c.StagesAfter)
		if c.ApplyCostBefore > 0 && c.ApplyCostAfter > 0 {
			fmt.Fprintf(&b, "     the apply worker's time per MB of WAL the subscriber wrote: %.1f ms before, %.1f ms after\n", c.ApplyCostBefore, c.ApplyCostAfter)
		}
	}
	if len(cs.Runs) > 0 {
		fmt.Fprintf(&b, "measured / predicted: median %.2f, from %.2f to %.2f over %d run(s)\nmodel: %s\n", cs.Median, cs.Min, cs.Max, len(cs.Runs), cs.Runs[0].Model)
	}
	for _, f := range cs.Failed {
		fmt.Fprintf(&b, "no measurement: %s\n", f)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
