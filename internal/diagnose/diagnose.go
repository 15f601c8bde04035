package diagnose

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/lagscope/lagscope/internal/buildinfo"
	"github.com/lagscope/lagscope/internal/conflict"
	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/proc"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/trouble"
	"github.com/lagscope/lagscope/internal/units"
)

// Options for one diagnose run.
type Options struct {
	Publisher  string // DSN (libpq keyword/value or URI; PG* variables apply)
	Subscriber string // DSN, "" to observe the publisher only
	// Primary and Standby are a physical standby's servers (DSNs; either
	// "" when not observed), instead of Publisher and Subscriber.
	Primary, Standby string
	Duration         time.Duration
	// ProbeHz is the wait-event probe rate per server; 0 chooses it per
	// server (sample.ProcProbeHz where /proc shows its processes,
	// sample.NoProcProbeHz where it does not).
	ProbeHz      float64
	Tick         time.Duration
	Slot         string // only this slot ("" = all logical slots)
	Subscription string // only the slot of this subscription
	NoProc       bool   // do not read /proc even for local servers
	// NoWaitSampling probes wait events with lagscope's statements even
	// where pg_wait_sampling's history is readable.
	NoWaitSampling bool
	// AlwaysBurst runs the CPU bursts beside /proc figures too (the lab's
	// recordings, which calibrate the burst against the run queue); by
	// default a side read from /proc gets none, which halves diagnose's
	// cost there.
	AlwaysBurst bool
	// KeepQueryLiterals keeps the constants in the captured query text of
	// lock blockers and open transactions (--keep-query-literals); by
	// default they are replaced with $n placeholders before anything is
	// stored.
	KeepQueryLiterals bool
	// Link is the link's rate today and a faster one the report predicts
	// the drain for (--link-rate, --what-if-link).
	Link model.LinkRates
}

// Validate checks the options.
func (o Options) Validate() error {
	if o.Physical() {
		if err := o.validatePhysical(); err != nil {
			return err
		}
		return o.validateWindow()
	}
	if o.Publisher == "" {
		return errors.New("--publisher is required (a connection string such as 'host=db1 dbname=app' or postgres://db1/app), or --primary/--standby for a physical standby")
	}
	if err := pg.CheckConnString(o.Publisher, "publisher"); err != nil {
		return err
	}
	if o.Subscriber != "" {
		if err := pg.CheckConnString(o.Subscriber, "subscriber"); err != nil {
			return err
		}
	}
	return o.validateWindow()
}

// validateWindow checks the sampling window's options and the link's rates.
func (o Options) validateWindow() error {
	if o.Duration < 2*time.Second {
		return fmt.Errorf("--duration %s is too short: use at least 2s (default 10s)", o.Duration)
	}
	if o.ProbeHz != 0 && !(o.ProbeHz >= 1 && o.ProbeHz <= 100) { // NaN fails too
		return fmt.Errorf("--probe-hz %g: use a rate between 1 and 100 (or 0, the default: 10 where /proc shows the server's processes, 20 where not)", o.ProbeHz)
	}
	return ValidateLink(o.Link)
}

// ValidateLink checks --link-rate and --what-if-link.
func ValidateLink(l model.LinkRates) error {
	switch {
	case l.To > 0 && l.Now <= 0:
		return fmt.Errorf("--what-if-link %s needs --link-rate, the link's rate today: lagscope measures the WAL it carries, not the bytes on the wire", l.To)
	case l.To > 0 && l.To <= l.Now:
		return fmt.Errorf("--what-if-link %s is not faster than --link-rate %s: give the faster link's rate", l.To, l.Now)
	}
	return nil
}

// ErrNothingToDiagnose means the publisher has no logical slot (to diagnose).
var ErrNothingToDiagnose = errors.New("nothing to diagnose")

// Run samples and builds the report.
func Run(ctx context.Context, o Options) (report.Report, *sample.Recording, error) {
	if err := o.Validate(); err != nil {
		return report.Report{}, nil, err
	}
	// One session per server for the whole run: preflight, window, setup.
	ss := NewSessions(o.Connector())
	defer ss.Close()
	slots, err := Preflight(ctx, ss.Connect, ss.Keep, o)
	if err != nil {
		return report.Report{}, nil, err
	}
	so := o.SampleOptions(o.Duration)
	so.Release = ss.Keep
	rec, err := sample.Run(ctx, ss.Connect, so)
	if err != nil {
		return report.Report{}, nil, err
	}
	// After the window: the catalog reads must not load a busy server
	// while it is measured, nor delay the window (a restart 3 s into a
	// run fell before it on a CPU-starved publisher).
	switch side := silentAtEnd(rec); {
	case ctx.Err() != nil:
		rec.SetupError = "interrupted before it was read"
	case side != "":
		// A server that did not answer the window's last tick (a frozen
		// path) would hold the read for its whole timeout.
		rec.SetupError = "not read: the " + side + " did not answer at the window's end"
	default:
		rec.Setup, rec.SetupError = ReadSetup(ctx, o, ss)
	}
	if ctx.Err() != nil && len(rec.Ticks) < 2 {
		return report.Report{}, rec, ctx.Err()
	}
	return BuildWith(rec, slots, o.ProbeHz, o.Link), rec, nil
}

// silentAtEnd names the side that did not answer the recording's last
// tick ("" when both did, or there is no tick).
func silentAtEnd(rec *sample.Recording) string {
	if len(rec.Ticks) == 0 {
		return ""
	}
	last := rec.Ticks[len(rec.Ticks)-1]
	for _, n := range rec.Nodes {
		if !last.Read(n.ID).OK {
			return string(n.ID)
		}
	}
	return ""
}

// Connector opens observing sessions to o's servers.
func (o Options) Connector() sample.Connector {
	return func(ctx context.Context, side string) (*pg.Conn, error) {
		dsn := o.Publisher
		switch side {
		case sample.Subscriber:
			dsn = o.Subscriber
		case string(sample.PrimaryNode):
			dsn = o.Primary
		case string(sample.StandbyNode):
			dsn = o.Standby
		}
		return pg.Connect(ctx, dsn, side)
	}
}

// SampleOptions are the sampler's options for one window of d.
func (o Options) SampleOptions(d time.Duration) sample.Options {
	so := sample.Options{Duration: d, Tick: o.Tick, ProbeHz: o.ProbeHz, Subscriber: o.Subscriber != "", NoWaitSampling: o.NoWaitSampling, AlwaysBurst: o.AlwaysBurst,
		KeepQueryLiterals: o.KeepQueryLiterals}
	if !o.NoProc {
		if fs, err := proc.NewFS(""); err == nil {
			so.Proc = fs
		}
	}
	return so
}

// Build turns a recording into a report: one classified path per slot
// (restricted to slots when not empty). It is pure.
func Build(rec *sample.Recording, slots []string, probeHz float64) report.Report {
	return BuildWith(rec, slots, probeHz, model.LinkRates{})
}

// BuildWith is Build with the link's rates the operator gave, for the
// what-if line of a faster link.
func BuildWith(rec *sample.Recording, slots []string, probeHz float64, link model.LinkRates) report.Report {
	r := report.Report{SchemaVersion: report.SchemaVersion, Tool: "lagscope", ToolVersion: buildinfo.Version(), Start: rec.Start,
		WindowS:   rec.End.Sub(rec.Start).Seconds(),
		Publisher: server(rec, *rec.Server(sample.PublisherNode), sample.Publisher), PositionsS: positionsSpan(rec)}
	if rec.Server(sample.SubscriberNode) != nil {
		sub := server(rec, *rec.Server(sample.SubscriberNode), sample.Subscriber)
		r.Subscriber = &sub
	}
	r.ProbeHz = reportHz(r, probeHz)
	read := setupRead(rec)
	for _, in := range model.Inputs(rec, slots) {
		v := model.Judge(in)
		s := in.Summary
		p := report.Path{Slot: in.Slot, Subscription: in.Subscription, Verdict: v,
			LagBytes: s.Lag.Total, Lag: s.Lag, GeneratedMBps: units.MBPerSecond(s.Generated), ConfirmedMBps: units.MBPerSecond(s.Consumed),
			DecodedMBps: units.MBPerSecond(s.Decoded),
			Walsender:   s.Walsender, Apply: s.Apply, PubCPU: s.PubCPU, SubCPU: s.SubCPU}
		p.SubWALPerSent = in.SubWALPerSent
		series := measure.SeriesOf(rec, in.Slot)
		p.Series = &series
		if v.Txn != nil {
			p.Trouble = trouble.OfHeld(rec, in.Slot, "a large transaction in flight holds restart_lsn until it is applied")
		} else {
			p.Trouble = trouble.Of(rec, in.Slot)
		}
		p.Conflicts = conflict.Of(rec, p.Subscription)
		p.CatchUp, p.CatchUpS = report.CatchUp(s.Lag.Total, s.Generated, s.Progress(), s.ProgressBasis(), v.Name == model.CaughtUp)
		if c, ok := model.TxnCatchUp(v, s.Lag.Total); ok {
			p.CatchUp, p.CatchUpS = c, 0
		}
		facts := model.PathFacts{Slot: in.Slot, Subscription: in.Subscription, Verdict: v, Summary: s,
			SubWALPerSent: in.SubWALPerSent, PubCPUs: rec.Server(sample.PublisherNode).CPUs, Calibration: in.Calibration}
		if rec.Server(sample.SubscriberNode) != nil {
			facts.SubCPUs = rec.Server(sample.SubscriberNode).CPUs
			facts.ApplyCPUs.N, facts.ApplyCPUs.By = rec.ApplyCPUs(in.Subscription)
		}
		var setup *model.Setup
		if in.Subscription != "" {
			withApplyWork(&p, rec, read.Snaps)
			facts.Tables, facts.ApplyWALBytes = p.Tables, p.ApplyWALBytes
			says := model.FromSetup(facts, read)
			if says.Caveat != "" {
				p.Caveats = append(p.Caveats, says.Caveat)
			}
			p.Setup = append(p.Setup, says.Findings...)
			setup = says.Setup
		}
		p.Verdict = model.Explain(p.Verdict, setup)
		p.WhatIf = model.WhatIf(facts, link, read)
		// Lists are arrays in the JSON, empty rather than null.
		if p.Evidence == nil {
			p.Evidence = []model.Evidence{}
		}
		for _, l := range []*[]model.Advice{&p.Helps, &p.NotHelps} {
			if *l == nil {
				*l = []model.Advice{}
			}
		}
		r.Paths = append(r.Paths, p)
	}
	sort.Slice(r.Paths, func(i, j int) bool { return r.Paths[i].Slot < r.Paths[j].Slot })
	r.Gaps = gapLines(rec)
	r.Notes = append(r.Notes, readErrorNotes(rec)...)
	if rec.Server(sample.SubscriberNode) == nil {
		r.Notes = append(r.Notes, "no --subscriber: the apply side was not observed, so subscriber-side verdicts cannot be given and the publisher-side ones are less certain")
	}
	return r
}

// gapLines are the report's lines of the recording's sampling gaps.
func gapLines(rec *sample.Recording) []string {
	var out []string
	for _, g := range rec.Gaps {
		out = append(out, fmt.Sprintf("%s not sampled for %.1f s from %s: %s", g.Side, g.To.Sub(g.From).Seconds(), g.From.Format("15:04:05"), g.Cause))
	}
	return out
}

// server describes one observed server in the report; with pg_wait_sampling
// as the wait-event source, its rate is the observations a second of the
// side's busiest process.
func server(rec *sample.Recording, s sample.Server, side string) report.Server {
	out := report.Server{Version: s.Version, ProcUnavailable: s.ProcUnavailable, WaitSource: s.WaitSource, ProbeHz: s.ProbeHz}
	if s.WaitSource != "" {
		out.WaitHz = rec.WaitHz(side)
	}
	return out
}

// reportHz is the report's one probe rate: the publisher's own probes',
// else the subscriber's, else the rate asked for (recordings that did not
// keep their sides' rates are built with the rate estimated from them).
func reportHz(r report.Report, asked float64) float64 {
	switch {
	case r.Publisher.ProbeHz > 0:
		return r.Publisher.ProbeHz
	case r.Subscriber != nil && r.Subscriber.ProbeHz > 0:
		return r.Subscriber.ProbeHz
	}
	return asked
}

// positionsSpan is the time from the first to the last tick at which the
// publisher answered: what the rates are measured over.
func positionsSpan(rec *sample.Recording) float64 {
	var first, last time.Time
	for _, t := range rec.Ticks {
		if t.Read(sample.PublisherNode).OK {
			if first.IsZero() {
				first = t.At
			}
			last = t.At
		}
	}
	return last.Sub(first).Seconds()
}
