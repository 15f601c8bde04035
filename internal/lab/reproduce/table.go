package reproduce

import (
	"fmt"
	"math"

	"github.com/lagscope/lagscope/internal/median"
)

// TableVersion is bumped when Table's JSON shape changes.
const TableVersion = 1

// Table is one experiment's outcome on this machine.
type Table struct {
	Version       int    `json:"version"`
	Experiment    string `json:"experiment"`
	Seed          string `json:"seed"`
	ServerVersion string `json:"server_version"`
	Runs          int    `json:"runs"`
	Quick         bool   `json:"quick"`
	// Command is the command line that produced the table (set by the CLI).
	Command  string    `json:"command,omitempty"`
	Sections []Section `json:"sections"`
	// Caveats name what this machine cannot reproduce faithfully, and why.
	Caveats []string `json:"caveats,omitempty"`
	// Failures are broken runs (data differing after a drain); any failure
	// makes the command exit non-zero.
	Failures []string `json:"failures,omitempty"`
}

// Section is one of the seed's tables.
type Section struct {
	Title  string   `json:"title"`
	Rows   []Row    `json:"rows"`
	Ratios []Ratio  `json:"ratios,omitempty"`
	Notes  []string `json:"notes,omitempty"`
}

// Row is one measured quantity over the runs, beside the seed's figure.
type Row struct {
	Name string `json:"name"`
	// Seed is the seed's figure as published ("66.0 / 68.6"), "" when the seed
	// has none.
	Seed string    `json:"seed,omitempty"`
	Unit string    `json:"unit"`
	Runs []float64 `json:"runs"`
	// Median, Min and Max summarise Runs.
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// Ratio compares two medians the way the seed does.
type Ratio struct {
	Name     string  `json:"name"`
	Seed     float64 `json:"seed"`
	Measured float64 `json:"measured"`
	// Tolerance is the accepted relative distance from Seed (0.2 = ±20%);
	// 0 means the ratio depends on this machine and is shown, not checked.
	Tolerance float64 `json:"tolerance,omitempty"`
	// Verdict is "within ±20%", "outside ±20%" or why it is not comparable.
	Verdict string `json:"verdict"`
}

// NewRow summarises per-run values.
func NewRow(name, seed, unit string, runs []float64) Row {
	r := Row{Name: name, Seed: seed, Unit: unit, Runs: runs}
	r.Median, r.Min, r.Max = Summary(runs)
	return r
}

// Summary returns the median, minimum and maximum of v (NaN for none).
func Summary(v []float64) (med, lo, hi float64) {
	if len(v) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	s := median.SpreadOf(v)
	return s.Median, s.Min, s.Max
}

// NewRatio compares measured with the seed's ratio. With a tolerance > 0 the
// verdict says whether it is within it; caveat, if not empty, replaces the
// verdict (the ratio cannot be compared here).
func NewRatio(name string, seed, measured, tolerance float64, caveat string) Ratio {
	r := Ratio{Name: name, Seed: seed, Measured: measured, Tolerance: tolerance}
	switch {
	case caveat != "":
		r.Verdict = caveat
	case math.IsNaN(measured) || math.IsInf(measured, 0):
		r.Verdict = "not measured"
	case tolerance <= 0:
		r.Verdict = "shown, not checked"
	case math.Abs(measured/seed-1) <= tolerance:
		r.Verdict = fmt.Sprintf("within ±%.0f%%", 100*tolerance)
	default:
		r.Verdict = fmt.Sprintf("outside ±%.0f%% (%+.0f%%)", 100*tolerance, 100*(measured/seed-1))
	}
	return r
}

// Within reports whether a checked ratio is inside its tolerance.
func (r Ratio) Within() bool {
	return r.Tolerance > 0 && !math.IsNaN(r.Measured) && math.Abs(r.Measured/r.Seed-1) <= r.Tolerance
}

// Row finds a row by name in any section (nil when absent).
func (t *Table) Row(name string) *Row {
	for i := range t.Sections {
		for j := range t.Sections[i].Rows {
			if t.Sections[i].Rows[j].Name == name {
				return &t.Sections[i].Rows[j]
			}
		}
	}
	return nil
}

// Ratio finds a ratio by name in any section (nil when absent).
func (t *Table) Ratio(name string) *Ratio {
	for i := range t.Sections {
		for j := range t.Sections[i].Ratios {
			if t.Sections[i].Ratios[j].Name == name {
				return &t.Sections[i].Ratios[j]
			}
		}
	}
	return nil
}

// ratioOf is the ratio of two rows' medians (NaN when either is missing).
func ratioOf(a, b Row) float64 {
	if b.Median == 0 {
		return math.NaN()
	}
	return a.Median / b.Median
}
