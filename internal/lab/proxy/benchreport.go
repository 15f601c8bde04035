package proxy

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/lagscope/lagscope/internal/median"
	"github.com/lagscope/lagscope/internal/units"
)

// BenchRates runs Bench for every rate, repeat times each, d long, and
// summarises the runs per rate; progress, if set, hears of each run as it
// ends (i counts from 1).
func BenchRates(ctx context.Context, rates []units.ByteRate, repeat int, d time.Duration, progress func(r units.ByteRate, i int, run BenchRun)) (BenchReport, error) {
	rep := BenchReport{SchemaVersion: 1, Started: time.Now().UTC().Truncate(time.Second),
		DurationS: d.Seconds(), Repeat: repeat, CPUs: runtime.NumCPU()}
	load := newLoadMeter()
	for _, r := range rates {
		var runs []BenchRun
		for i := range repeat {
			before := load.read()
			res, err := Bench(ctx, r, d)
			if err != nil {
				return rep, fmt.Errorf("bench at %s: %w", r, err)
			}
			run := BenchRun{BenchResult: res}
			run.HostCores, run.SelfCores = loadBetween(before, load.read())
			if progress != nil {
				progress(r, i+1, run)
			}
			runs = append(runs, run)
		}
		rep.Rows = append(rep.Rows, summarise(r, runs))
	}
	return rep, nil
}

// BenchReport is the outcome of 'lagscope proxy bench', one row per rate.
type BenchReport struct {
	SchemaVersion int        `json:"schema_version"`
	Started       time.Time  `json:"started"`
	DurationS     float64    `json:"bench_duration_s"`
	Repeat        int        `json:"repeat"`
	CPUs          int        `json:"cpus"`
	Rows          []BenchRow `json:"rows"`
}

// BenchRow summarises the runs at one target rate. Rates are bytes per second.
type BenchRow struct {
	Target     units.ByteRate `json:"target_bytes_per_sec"`
	TargetText string         `json:"target"`
	Measured   Spread         `json:"measured_bytes_per_sec"`
	ErrorPct   *Spread        `json:"error_pct,omitempty"`            // limited rates only
	Direct     *Spread        `json:"direct_bytes_per_sec,omitempty"` // unlimited only
	Ratio      *Spread        `json:"ratio,omitempty"`                // unlimited only
	OtherCores *Spread        `json:"other_cores,omitempty"`          // when /proc is readable
	Runs       []BenchRun     `json:"runs"`
}

// BenchRun is one Bench run with the machine load around it.
type BenchRun struct {
	BenchResult
	// HostCores is how many CPUs the whole machine kept busy on average during
	// the run, SelfCores how many this process used; 0 when /proc is unreadable.
	HostCores float64 `json:"host_cores,omitempty"`
	SelfCores float64 `json:"self_cores,omitempty"`
}

// otherCores estimates the CPUs used by everything but this process: other
// work competing with the bench. It includes kernel threads, such as
// ksoftirqd, that may partly carry the bench's own loopback traffic.
func (r BenchRun) otherCores() float64 { return max(r.HostCores-r.SelfCores, 0) }

// Spread is the median, minimum and maximum of repeated measurements.
type Spread = median.Spread

// SpreadOf summarises xs: its median (see package median), minimum and
// maximum.
func SpreadOf(xs []float64) Spread { return median.SpreadOf(xs) }

// summarise builds the row for the runs at one target.
func summarise(target units.ByteRate, runs []BenchRun) BenchRow {
	pick := func(f func(BenchRun) float64) Spread {
		xs := make([]float64, len(runs))
		for i, r := range runs {
			xs[i] = f(r)
		}
		return SpreadOf(xs)
	}
	row := BenchRow{Target: target, TargetText: target.String(), Runs: runs,
		Measured: pick(func(r BenchRun) float64 { return r.Measured })}
	if target > 0 {
		e := pick(func(r BenchRun) float64 { return r.ErrorPct })
		row.ErrorPct = &e
	} else {
		d := pick(func(r BenchRun) float64 { return r.Direct })
		q := pick(func(r BenchRun) float64 { return r.Ratio })
		row.Direct, row.Ratio = &d, &q
	}
	if runs[0].HostCores > 0 {
		o := pick(BenchRun.otherCores)
		row.OtherCores = &o
	}
	return row
}

// String is the progress line for one bench run.
func (r BenchRun) String() string {
	var s string
	if r.Target > 0 {
		s = fmt.Sprintf("%.3f MB/s (%+.2f%%)", units.MBPerSecond(r.Measured), r.ErrorPct)
	} else {
		s = fmt.Sprintf("%.0f MB/s through the proxy, %.0f MB/s direct, ratio %.2f",
			units.MBPerSecond(r.Measured), units.MBPerSecond(r.Direct), r.Ratio)
	}
	if r.HostCores > 0 {
		s += fmt.Sprintf("; CPUs busy %.2f, of which this process %.2f", r.HostCores, r.SelfCores)
	}
	return s
}

// RenderBench prints rep: one sentence for a single rate run once, a
// table otherwise.
func RenderBench(w io.Writer, rep BenchReport) error {
	if len(rep.Rows) == 1 && rep.Repeat == 1 {
		row := rep.Rows[0]
		if row.Target > 0 {
			_, err := fmt.Fprintf(w, "target %s, measured %.3f MB/s through the proxy over %gs: error %+.2f%%\n",
				row.Target, units.MBPerSecond(row.Measured.Median), rep.DurationS, row.ErrorPct.Median)
			return err
		}
		_, err := fmt.Fprintf(w, "unlimited: %.0f MB/s through the proxy, %.0f MB/s direct (%gs each): ratio %.2f (%.0f%% of direct)\n",
			units.MBPerSecond(row.Measured.Median), units.MBPerSecond(row.Direct.Median), rep.DurationS,
			row.Ratio.Median, 100*row.Ratio.Median)
		return err
	}
	fmt.Fprintf(w, "proxy bench on 127.0.0.1: %gs per run, %d run(s) per rate, %d CPU(s); median [min .. max]\n",
		rep.DurationS, rep.Repeat, rep.CPUs)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TARGET\tMEASURED MB/s\tERROR %\tDIRECT MB/s\tRATIO\tOTHER CPU")
	for _, row := range rep.Rows {
		cols := []string{row.TargetText, fmtSpread(mbps(row.Measured), "%.3f"), "", "", "", ""}
		if row.OtherCores != nil {
			cols[5] = fmtSpread(*row.OtherCores, "%.2f")
		}
		if row.ErrorPct != nil {
			cols[2] = fmtSpread(*row.ErrorPct, "%+.2f")
		}
		if row.Direct != nil {
			cols[1] = fmtSpread(mbps(row.Measured), "%.0f")
			cols[3] = fmtSpread(mbps(*row.Direct), "%.0f")
			cols[4] = fmtSpread(*row.Ratio, "%.2f")
		}
		fmt.Fprintln(tw, strings.Join(cols, "\t"))
	}
	return tw.Flush()
}

func mbps(s Spread) Spread {
	return Spread{Median: units.MBPerSecond(s.Median), Min: units.MBPerSecond(s.Min), Max: units.MBPerSecond(s.Max)}
}

// fmtSpread prints "median [min .. max]", or just the median when all agree.
func fmtSpread(s Spread, verb string) string {
	med := fmt.Sprintf(verb, s.Median)
	lo, hi := fmt.Sprintf(verb, s.Min), fmt.Sprintf(verb, s.Max)
	if lo == med && hi == med {
		return med
	}
	return fmt.Sprintf("%s [%s .. %s]", med, lo, hi)
}
