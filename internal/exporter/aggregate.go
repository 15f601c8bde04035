package exporter

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/lagscope/lagscope/internal/report"
)

// aggregate folds the per-slot gauges of slots exported under one key
// (slotKey: every tablesync slot under TablesyncSlots) into one series
// each: the largest of what grows toward trouble (retained WAL, its
// growth), the soonest forecast and the smallest reserve; and it counts
// the tablesync paths by subscription and verdict
// (lagscope_tablesync_slots). A slot with a key of its own passes through
// unchanged.
type aggregate struct {
	vals   map[aggKey]float64
	counts map[[2]string]int // subscription, verdict
}

type aggKey struct {
	d    *prometheus.Desc
	slot string
}

func newAggregate() *aggregate {
	return &aggregate{vals: map[aggKey]float64{}, counts: map[[2]string]int{}}
}

// max keeps the largest v of d for slot.
func (a *aggregate) max(d *prometheus.Desc, slot string, v float64) {
	k := aggKey{d, slot}
	if old, ok := a.vals[k]; !ok || v > old {
		a.vals[k] = v
	}
}

// min keeps the smallest v of d for slot.
func (a *aggregate) min(d *prometheus.Desc, slot string, v float64) {
	k := aggKey{d, slot}
	if old, ok := a.vals[k]; !ok || v < old {
		a.vals[k] = v
	}
}

// path folds in a tablesync slot's path: counted by its subscription and
// verdict, its time to trouble kept at the worst.
func (a *aggregate) path(p report.Path) {
	a.counts[[2]string{p.Subscription, string(p.Name)}]++
	tr := p.Trouble
	if tr == nil {
		return
	}
	a.max(descGrowth, TablesyncSlots, tr.GrowthBps)
	for _, f := range []struct {
		d *prometheus.Desc
		v float64
	}{{descSafeWAL, float64(tr.SafeBytes)}, {descUnreservedIn, tr.UnreservedInS}, {descIdleIn, tr.IdleInS}, {descDiskFullIn, tr.DiskFullInS}} {
		if f.v >= 0 { // negative: unknown or not capped (trouble.Slot)
			a.min(f.d, TablesyncSlots, f.v)
		}
	}
}

// collect sends the folded series of pair.
func (a *aggregate) collect(gauge func(*prometheus.Desc, float64, ...string), pair string) {
	for k, v := range a.vals {
		gauge(k.d, v, pair, k.slot)
	}
	for k, n := range a.counts {
		gauge(descTablesync, float64(n), pair, k[0], k[1])
	}
}
