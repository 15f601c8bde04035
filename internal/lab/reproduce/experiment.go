package reproduce

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Options control one experiment run.
type Options struct {
	Bin     string // server binaries (initdb, postgres)
	PGBench string // path to pgbench
	// PubCPUs run the publisher (or primary) and its pgbench, SubCPUs the
	// subscriber (or standby); disjoint.
	PubCPUs, SubCPUs []int
	// Runs is how many times each case runs (0 = the experiment's default).
	Runs int
	// Quick shrinks tables and phases so that the experiment fits in CI; the
	// effects keep their direction but not their size.
	Quick bool
	// Only runs just these parts of the experiment (Experiment.Parts; empty
	// = all of them).
	Only []string
	Log  io.Writer // progress lines (nil = discard)
}

// part reports whether part name is to run.
func (o Options) part(name string) bool {
	if len(o.Only) == 0 {
		return true
	}
	for _, p := range o.Only {
		if p == name {
			return true
		}
	}
	return false
}

func (o *Options) defaults(runs int) {
	if o.Runs <= 0 {
		o.Runs = runs
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
}

func (o Options) logf(format string, a ...any) {
	fmt.Fprintf(o.Log, "reproduce: "+format+"\n", a...)
}

// Experiment reruns one seed's measurements.
type Experiment struct {
	Name    string
	Seed    string // seed file, e.g. "000"
	Summary string
	// DefaultRuns is Options.Runs when not set.
	DefaultRuns int
	// Parts are the names Options.Only may choose from (nil = not divisible).
	Parts []string
	run   func(ctx context.Context, o Options) (*Table, error)
}

// Run runs the experiment. A returned table may hold Failures; an error means
// the experiment could not run at all.
func (e Experiment) Run(ctx context.Context, o Options) (*Table, error) {
	if err := e.CheckParts(o.Only); err != nil {
		return nil, err
	}
	o.defaults(e.DefaultRuns)
	t, err := e.run(ctx, o)
	if t != nil {
		t.Version, t.Experiment, t.Seed, t.Runs, t.Quick = TableVersion, e.Name, e.Seed, o.Runs, o.Quick
	}
	return t, err
}

// Experiments lists every experiment, in the order help shows them.
var Experiments = []Experiment{
	{Name: "bottleneck", Seed: "000", DefaultRuns: 2, Parts: bottleneckParts,
		Summary: "seed 000: flat/hash4-1/hash4-4 idle and busy, link 8 vs 16 MB/s, where the lag shows, one big transaction streamed or not, REPLICA IDENTITY FULL with a PK",
		run:     runBottleneck},
	{Name: "cpu-cost", Seed: "001", DefaultRuns: 3,
		Summary: "seed 001: server CPU of no consumer, decode to /dev/null, apply text/binary/4 extra indexes; subscriber WAL; the REPLICA IDENTITY FULL trap",
		run:     runCPUCost},
	{Name: "replay", Seed: "004", DefaultRuns: 3,
		Summary: "seed 004: synchronous physical standby, time to replicate a fixed load and startup-process CPU for max_wal_senders 10/100/200/300",
		run:     runReplay},
}

// Lookup finds an experiment by name.
func Lookup(name string) (Experiment, error) {
	for _, e := range Experiments {
		if e.Name == name {
			return e, nil
		}
	}
	names := make([]string, len(Experiments))
	for i, e := range Experiments {
		names[i] = e.Name
	}
	sort.Strings(names)
	return Experiment{}, fmt.Errorf("unknown experiment %q: choose one of %s", name, strings.Join(names, ", "))
}

// CheckParts rejects parts (Options.Only) the experiment does not have.
func (e Experiment) CheckParts(only []string) error {
	for _, p := range only {
		found := false
		for _, q := range e.Parts {
			found = found || p == q
		}
		if !found {
			if len(e.Parts) == 0 {
				return fmt.Errorf("%s has no parts to choose: drop --only", e.Name)
			}
			return fmt.Errorf("%s has no part %q: choose from %s", e.Name, p, strings.Join(e.Parts, ", "))
		}
	}
	return nil
}
