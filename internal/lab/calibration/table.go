package calibration

import (
	"fmt"
	"github.com/lagscope/lagscope/internal/median"
	"io"
	"math"
	"sort"
)

// Row is the median of the points of one side, scenario and version.
type Row struct {
	Side, Label, Version string
	N                    int
	Runq, CPU, Stretch   float64
	LateMedian, LateP90  float64
}

// Rows groups sorted points into rows of medians.
func Rows(ps []Point) []Row {
	var out []Row
	for i := 0; i < len(ps); {
		j := i
		for j < len(ps) && ps[j].Side == ps[i].Side && ps[j].Label == ps[i].Label && ps[j].Version == ps[i].Version {
			j++
		}
		g := ps[i:j]
		out = append(out, Row{Side: g[0].Side, Label: g[0].Label, Version: g[0].Version, N: len(g),
			Runq:       medianOf(g, func(p Point) float64 { return p.Runq }),
			CPU:        medianOf(g, func(p Point) float64 { return p.CPU }),
			Stretch:    medianOf(g, func(p Point) float64 { return p.Stretch }),
			LateMedian: medianOf(g, func(p Point) float64 { return p.LateMedianMS }),
			LateP90:    medianOf(g, func(p Point) float64 { return p.LateP90MS }),
		})
		i = j
	}
	return out
}

func medianOf(ps []Point, f func(Point) float64) float64 {
	v := make([]float64, 0, len(ps))
	for _, p := range ps {
		if x := f(p); x >= 0 {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return -1
	}
	return median.Of(v)
}

// Markdown writes the rows as a table, then each signal's rank correlation
// with the /proc run-queue share.
func Markdown(w io.Writer, ps []Point) error {
	fmt.Fprintln(w, "| side | scenario | version | runs | /proc run queue | /proc CPU | burst stretch | 1 - 1/stretch | wake-up late median | p90 |")
	fmt.Fprintln(w, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range Rows(ps) {
		fmt.Fprintf(w, "| %s | %s | %s | %d | %.0f%% | %.0f%% | %.2fx | %.0f%% | %.2f ms | %.2f ms |\n",
			r.Side, r.Label, r.Version, r.N, 100*r.Runq, 100*r.CPU, r.Stretch, 100*(1-1/r.Stretch), r.LateMedian, r.LateP90)
	}
	fmt.Fprintln(w)
	for _, side := range []string{"publisher", "subscriber", ""} {
		var sub []Point
		for _, p := range ps {
			if side == "" || p.Side == side {
				sub = append(sub, p)
			}
		}
		name := side
		if name == "" {
			name = "both sides"
		}
		_, err := fmt.Fprintf(w, "- %s, %d runs: Spearman rank correlation with the /proc run-queue share: burst stretch %.2f, wake-up lateness median %.2f, p90 %.2f\n",
			name, len(sub),
			spearman(sub, func(p Point) float64 { return p.Stretch }),
			spearman(sub, func(p Point) float64 { return p.LateMedianMS }),
			spearman(sub, func(p Point) float64 { return p.LateP90MS }))
		if err != nil {
			return err
		}
	}
	return nil
}

// spearman is the rank correlation between f and the run-queue share.
func spearman(ps []Point, f func(Point) float64) float64 {
	if len(ps) < 3 {
		return math.NaN()
	}
	x := ranks(ps, func(p Point) float64 { return p.Runq })
	y := ranks(ps, f)
	return pearson(x, y)
}

// ranks returns each point's rank by f (ties share their mean rank).
func ranks(ps []Point, f func(Point) float64) []float64 {
	idx := make([]int, len(ps))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return f(ps[idx[a]]) < f(ps[idx[b]]) })
	r := make([]float64, len(ps))
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && f(ps[idx[j]]) == f(ps[idx[i]]) {
			j++
		}
		for k := i; k < j; k++ {
			r[idx[k]] = float64(i+j-1) / 2
		}
		i = j
	}
	return r
}

func pearson(x, y []float64) float64 {
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx += x[i] / n
		my += y[i] / n
	}
	var sxy, sxx, syy float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}
