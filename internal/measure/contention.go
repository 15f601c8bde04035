package measure

import (
	"sort"

	"github.com/lagscope/lagscope/internal/median"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/topology"
)

// Contention is what lagscope's own session measured of a server's CPUs
// from inside it, without /proc: how much a burst of fixed work was
// stretched, and how late the session woke from its sleeps.
type Contention struct {
	// Bursts is the number of CPU bursts in the window (0: none, an older
	// recording).
	Bursts int `json:"bursts"`
	// BareMS is the fastest piece of any burst, ms: the work's cost on a
	// CPU nothing else wanted (a piece that fits in one scheduler slice).
	BareMS float64 `json:"bare_ms,omitempty"`
	// Stretch is the median over the bursts of each burst's time over its
	// pieces' bare cost: 1 on an idle CPU, about n on a CPU that n
	// runnable processes share; -1 when unknown. The median, not the
	// pooled time: one stall of the VM (a 91 ms piece among 1 ms ones)
	// would make a pooled figure of an idle publisher look saturated,
	// while a starved walsender's server stalls most bursts.
	Stretch float64 `json:"stretch" jsonschema:"nullable"`
	// LateMedianMS and LateP90MS are the median and 90th percentile of the
	// probe session's wake-up lateness, ms; -1 when unknown.
	LateMedianMS float64 `json:"late_median_ms" jsonschema:"nullable"`
	LateP90MS    float64 `json:"late_p90_ms" jsonschema:"nullable"`
	LateProbes   int     `json:"late_probes"`
}

// Known reports whether the bursts measured the stretch.
func (c Contention) Known() bool { return c.Stretch > 0 }

// RunqEstimate is the run-queue share the stretch implies for a process
// that wants a CPU all the time: it runs 1/Stretch of the time, and waits
// the rest; -1 when unknown.
func (c Contention) RunqEstimate() float64 {
	if !c.Known() {
		return -1
	}
	return 1 - 1/c.Stretch
}

// contention summarises one side's bursts and wake-up lateness over the
// ticks and probes of the window.
func contention(rec *sample.Recording, ticks []sample.Tick, side string) Contention {
	c := Contention{Stretch: -1, LateMedianMS: -1, LateP90MS: -1}
	var bursts [][]float64
	for _, t := range ticks {
		b := t.Read(topology.NodeID(side)).Burst
		if len(b) == 0 {
			continue
		}
		bursts = append(bursts, b)
		for _, ms := range b {
			if ms > 0 && (c.BareMS == 0 || ms < c.BareMS) {
				c.BareMS = ms
			}
		}
	}
	if c.Bursts = len(bursts); c.BareMS > 0 {
		st := make([]float64, 0, len(bursts))
		for _, b := range bursts {
			total := 0.0
			for _, ms := range b {
				total += ms
			}
			st = append(st, total/(float64(len(b))*c.BareMS))
		}
		sort.Float64s(st)
		c.Stretch = median.Of(st)
	}
	from, to := ticks[0].At, ticks[len(ticks)-1].At
	var late []float64
	for _, p := range rec.Probes {
		if p.Side == side && p.LateMS != nil && !p.At.Before(from) && !p.At.After(to) {
			late = append(late, *p.LateMS)
		}
	}
	if c.LateProbes = len(late); c.LateProbes > 0 {
		sort.Float64s(late)
		c.LateMedianMS = quantile(late, 0.5)
		c.LateP90MS = quantile(late, 0.9)
	}
	return c
}

// quantile returns the q-quantile of sorted values (nearest rank).
func quantile(sorted []float64, q float64) float64 {
	i := int(q*float64(len(sorted)-1) + 0.5)
	return sorted[i]
}
