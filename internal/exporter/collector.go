package exporter

import (
	"fmt"
	"runtime"
	"sort"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lagscope/lagscope/internal/buildinfo"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/monitor"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
)

// Collector is the prometheus.Collector of every watched pair: Update
// folds a monitor's step in, Collect reads the state under a lock that no
// database read ever holds.
type Collector struct {
	mu    sync.RWMutex
	pairs map[string]*PairState
}

// NewCollector starts the state of each pair (none reached yet).
func NewCollector(opts []monitor.Options) *Collector {
	c := &Collector{pairs: map[string]*PairState{}}
	for _, o := range opts {
		if o.Diagnose.Physical() {
			c.pairs[o.Pair] = NewPhysicalPairState(o.Pair, o.Diagnose.Primary != "", o.Diagnose.Standby != "")
			continue
		}
		c.pairs[o.Pair] = NewPairState(o.Pair, o.Diagnose.Subscriber != "")
	}
	return c
}

// Update folds one step of a pair into its state.
func (c *Collector) Update(u monitor.Update) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.pairs[u.Pair]; ok {
		s.Apply(u)
	}
}

// Describe sends every metric's description.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range allDescs {
		ch <- d
	}
}

// Collect sends the current value of every series.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(descBuild, prometheus.GaugeValue, 1, buildinfo.Version(), runtime.Version())
	c.mu.RLock()
	defer c.mu.RUnlock()
	names := make([]string, 0, len(c.pairs))
	for n := range c.pairs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		collectPairSafely(ch, c.pairs[n], collectPair)
	}
}

// collectPairSafely runs collect for one pair, turning a panic into an
// invalid metric: the scrape reports the error (promhttp's ErrorLog, one
// line) and every other pair's series are still served (ContinueOnError).
// Collect runs in the registry's own goroutines, where a panic would end
// the exporter.
func collectPairSafely(ch chan<- prometheus.Metric, s *PairState, collect func(chan<- prometheus.Metric, *PairState)) {
	defer func() {
		if r := recover(); r != nil {
			ch <- prometheus.NewInvalidMetric(descUp, fmt.Errorf("pair %s: its series are left out of this scrape: %v", labelValue(s.Pair), r))
		}
	}()
	collect(ch, s)
}

// constMetric is a series with its label values made valid (labelValue,
// on a copy: a caller's slice is reused for several series, and an
// escaped value escaped again would be another series); an error (none
// expected once they are valid) is sent as an invalid metric, which the
// scrape reports without leaving out the other series.
func constMetric(d *prometheus.Desc, t prometheus.ValueType, v float64, labels ...string) prometheus.Metric {
	values := make([]string, len(labels))
	for i, l := range labels {
		values[i] = labelValue(l)
	}
	m, err := prometheus.NewConstMetric(d, t, v, values...)
	if err != nil {
		return prometheus.NewInvalidMetric(d, err)
	}
	return m
}

func collectPair(ch chan<- prometheus.Metric, s *PairState) {
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- constMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- constMetric(d, prometheus.CounterValue, v, labels...)
	}
	for _, side := range []string{sample.Publisher, sample.Subscriber, string(sample.PrimaryNode), string(sample.StandbyNode)} {
		if up, ok := s.Up[side]; ok {
			gauge(descUp, b2f(up), s.Pair, side)
		}
	}
	counter(descSteps, float64(s.Steps-s.Failed), s.Pair, "ok")
	counter(descSteps, float64(s.Failed), s.Pair, "error")
	if !s.Updated.IsZero() {
		gauge(descUpdated, float64(s.Updated.UnixNano())/1e9, s.Pair)
	}
	counter(descGenerated, s.Generated, s.Pair)
	for _, m := range []struct {
		d *prometheus.Desc
		v map[key]float64
	}{{descDecoded, s.Decoded}, {descConfirmed, s.Confirmed}, {descCPU, s.CPU}, {descRunq, s.Runq}, {descWaits, s.Waits}, {descReadErrors, s.ReadErrors}} {
		for _, k := range sortedKeys(m.v) {
			counter(m.d, m.v[k], append([]string{s.Pair}, k.values()...)...)
		}
	}
	if s.Report == nil {
		return
	}
	gauge(descWindow, s.Report.WindowS, s.Pair)
	syncs := newAggregate()
	for _, p := range s.Report.Paths {
		if slotKey(p.Slot) == TablesyncSlots {
			syncs.path(p)
			continue
		}
		collectPath(gauge, s, p)
	}
	syncs.collect(gauge, s.Pair)
	var standby *sample.StandbyRead
	if s.Report.Standby != nil && len(s.Report.Physical) == 1 {
		standby = lastStandbyRead(s.Window)
	}
	for _, p := range s.Report.Physical {
		collectPhysical(gauge, counter, s, p, standby)
	}
	if t := lastTick(s.Window); t != nil {
		retained := newAggregate()
		for _, sl := range t.Read(sample.PublisherNode).Slots {
			if sl.RestartLSN != 0 && t.Read(sample.PublisherNode).CurrentLSN >= sl.RestartLSN {
				retained.max(descRetained, slotKey(sl.Name), float64(t.Read(sample.PublisherNode).CurrentLSN-sl.RestartLSN))
			}
		}
		retained.collect(gauge, s.Pair)
		if d := t.Read(sample.PublisherNode).WALDisk; d != nil {
			gauge(descWALDiskFree, float64(d.FreeBytes), s.Pair)
		}
	}
	names := jsonNames(lastSubTick(s.Window))
	for _, l := range s.Limits {
		sub := l.Subscription
		if raw, ok := names[sub]; ok {
			sub = raw
		}
		gauge(descLimit, float64(l.Max), s.Pair, l.Side, l.Setting, sub)
		gauge(descLimitUsed, float64(l.Used), s.Pair, l.Side, l.Setting, sub)
	}
	// The server's own cumulative counters: a reset
	// (pg_stat_reset_subscription_stats) reads as a counter reset.
	if t := lastSubTick(s.Window); t != nil {
		for _, sub := range t.Read(sample.SubscriberNode).Subs {
			for kind, n := range sub.Conflicts {
				counter(descConflicts, float64(n), s.Pair, sub.Name, kind)
			}
		}
	}
}

// lastSubTick is the window's last tick the subscriber answered (nil if
// none).
func lastSubTick(w *sample.Recording) *sample.Tick {
	if w == nil {
		return nil
	}
	for i := len(w.Ticks) - 1; i >= 0; i-- {
		if w.Ticks[i].Read(sample.SubscriberNode).OK {
			return &w.Ticks[i]
		}
	}
	return nil
}

// collectVerdict sends a path's verdict series under its labels l (pair,
// slot, subscription, standby): the bottleneck over stages, the verdict,
// its confidence, the next limit's headroom and each stage's utilisation.
func collectVerdict(gauge func(*prometheus.Desc, float64, ...string), l, stages []string, v model.Verdict) {
	with := func(x ...string) []string { return append(append([]string{}, l...), x...) }
	limit := stageLabel(v.Limit)
	for _, st := range stages {
		gauge(descBottleneck, b2f(st == limit), with(st)...)
	}
	for _, name := range Verdicts() {
		gauge(descVerdict, b2f(name == string(v.Name)), with(name)...)
	}
	gauge(descConfidence, v.Confidence, l...)
	if v.Next != nil && v.Next.Headroom > 0 {
		gauge(descHeadroom, v.Next.Headroom, with(stageLabel(v.Next.Stage))...)
	}
	for _, st := range v.Stages {
		if st.Known() {
			gauge(descUtil, st.Utilisation, with(stageLabel(st.Name))...)
		}
	}
}

// collectPath sends one path's verdict, stages and lag.
func collectPath(gauge func(*prometheus.Desc, float64, ...string), s *PairState, p report.Path) {
	l := []string{s.Pair, p.Slot, p.Subscription, ""}
	with := func(v ...string) []string { return append(append([]string{}, l...), v...) }
	collectVerdict(gauge, l, Stages, p.Verdict)
	gauge(descLag, float64(p.Lag.NotYetSent), with("not_sent")...)
	gauge(descLag, float64(p.Lag.SentNotFlushed), with("sent_not_flushed")...)
	gauge(descLag, float64(p.Lag.FlushedNotConfd), with("flushed_not_confirmed")...)
	if sec, ok := p.LagTime.Seconds.Get(); ok {
		gauge(descLagSeconds, sec, l...)
	}
	if tr := p.Trouble; tr != nil {
		gauge(descGrowth, tr.GrowthBps, s.Pair, p.Slot)
		if tr.SafeBytes >= 0 {
			gauge(descSafeWAL, float64(tr.SafeBytes), s.Pair, p.Slot)
		}
		if tr.UnreservedInS >= 0 {
			gauge(descUnreservedIn, tr.UnreservedInS, s.Pair, p.Slot)
		}
		if tr.IdleInS >= 0 {
			gauge(descIdleIn, tr.IdleInS, s.Pair, p.Slot)
		}
		if tr.DiskFullInS >= 0 {
			gauge(descDiskFullIn, tr.DiskFullInS, s.Pair, p.Slot)
		}
	}
	pubV, subV := s.Report.Publisher.Version, ""
	if s.Report.Subscriber != nil {
		subV = s.Report.Subscriber.Version
	}
	ws, ap := PathPIDs(s.Window, p.Slot)
	gauge(descPathInfo, 1, with(pubV, subV, ws, ap)...)
}

// lastTick is the window's last tick the publisher answered (nil if none).
func lastTick(w *sample.Recording) *sample.Tick {
	if w == nil {
		return nil
	}
	for i := len(w.Ticks) - 1; i >= 0; i-- {
		if w.Ticks[i].Read(sample.PublisherNode).OK {
			return &w.Ticks[i]
		}
	}
	return nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
