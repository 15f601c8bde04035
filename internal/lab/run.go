package lab

import (
	"context"
	"io"
	"time"
)

// RunOptions control one scenario run.
type RunOptions struct {
	Pair     PairOptions
	PGBench  string        // path to pgbench
	Clients  int           // pgbench clients (seed 000: 16)
	Duration time.Duration // measurement window (default 30 s)
	// BacklogTime is how long the load runs with the subscriptions disabled
	// before they are enabled (0 = the scenario's default share of Duration).
	BacklogTime time.Duration
	// LightTPS is the caught-up scenario's transaction rate.
	LightTPS int
	Tick     time.Duration // position/CPU interval (seed: 2 s)
	ProbeHz  float64       // wait-event probe rate (seed: 4 Hz)
	// Verify drains the backlog after measuring (when the scenario drains)
	// and compares row count and sum(k) on both sides.
	Verify bool
	// During, if set, runs while the scenario holds, alongside the lab's own
	// measurement (lab run --diagnose uses it); its result is returned in
	// Result.During.
	During func(ctx context.Context, p *Pair) (any, error)
	// Inspect, if set, runs once the window ends, before the load stops and
	// the backlog drains; its result is returned in Result.Inspected.
	Inspect func(ctx context.Context, p *Pair) (any, error)
	// CatchUpCycles is how many catch-ups a physical catch-up scenario
	// times (0 or 1: the one its steps release; each further one builds
	// the backlog again after the window).
	CatchUpCycles int
	Log           io.Writer
}

func (o *RunOptions) defaults() {
	if o.Clients <= 0 {
		o.Clients = 16
	}
	if o.Duration <= 0 {
		o.Duration = 30 * time.Second
	}
	if o.Tick <= 0 {
		o.Tick = 2 * time.Second
	}
	if o.ProbeHz <= 0 {
		o.ProbeHz = 10
	}
	if o.LightTPS <= 0 {
		o.LightTPS = 200
	}
	if o.Pair.Rows <= 0 {
		o.Pair.Rows = 1_000_000
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	o.Pair.Log = o.Log
}

// Run builds a pair, drives it into the scenario's state, measures it and
// removes it. The pair is removed on every path out, including cancellation.
func Run(ctx context.Context, s Recipe, o RunOptions) (*Result, error) {
	o.defaults()
	s.pairOptions(&o.Pair)
	o.Pair.Purpose = "lab run " + string(s.Name)
	p, err := NewPair(ctx, o.Pair)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	return measureScenario(ctx, p, s, o)
}

// pairOptions sets what the scenario's schema decides about the pair. A
// link the caller asked for stays (at its rate), for tests that break it.
func (s Recipe) pairOptions(o *PairOptions) {
	o.Layout, o.RowFilter, o.SubIndexes = s.Layout, s.RowFilter, s.SubIndexes
	o.Link = o.Link || s.Link
	if s.FullIdentity {
		o.ReplicaIdentityFull, o.SubNoKey = true, true
	}
	o.CopyData = s.InitialSync
	if s.Text {
		o.Binary = false
	}
	o.SubCPULimit, o.PubReadLimit, o.SubReadLimit = s.SubCPULimit, s.PubReadLimit, s.SubReadLimit
	for k, v := range s.PubSettings {
		o.PubSettings = withSetting(o.PubSettings, k, v)
	}
	for k, v := range s.SubSettings {
		o.SubSettings = withSetting(o.SubSettings, k, v)
	}
	if s.Streaming != "" {
		o.Streaming = s.Streaming
	}
	o.MinMajor, o.Needs = s.MinMajor, s.Needs
}

// withSetting returns m (or a new map) with name = value.
func withSetting(m map[string]string, name, value string) map[string]string {
	out := map[string]string{name: value}
	for k, v := range m {
		if k != name {
			out[k] = v
		}
	}
	return out
}

// Up builds a pair and drives it into the scenario's state; the returned
// Load (nil when none) keeps running until stopped. Close the pair when done.
func Up(ctx context.Context, s Recipe, o RunOptions) (*Pair, *Load, error) {
	o.defaults()
	s.pairOptions(&o.Pair)
	o.Pair.Purpose = "lab up " + string(s.Name)
	p, err := NewPair(ctx, o.Pair)
	if err != nil {
		return nil, nil, err
	}
	load, err := p.drive(ctx, s, o)
	if err != nil {
		p.Close()
		return nil, nil, err
	}
	return p, load, nil
}
