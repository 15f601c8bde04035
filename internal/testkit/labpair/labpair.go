// Package labpair brings up a lab pair in a scenario for an integration
// test of something that watches it (diagnose, the exporter, watch): the
// scenario's load keeps running until the test ends, when the pair is
// removed.
package labpair

import (
	"context"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/lab/scenario"
	"github.com/lagscope/lagscope/internal/testkit/labtest"
)

// Up brings up a pair of 50,000 rows in scenario name, pinned to CPU 0
// (publisher) and 1 (subscriber), skipping like labtest.Servers; each of
// opts may change the pair's options first (e.g. give it a link).
func Up(t *testing.T, name string, opts ...func(*lab.PairOptions)) *lab.Pair {
	t.Helper()
	s, err := scenario.Lookup(name, false)
	if err != nil {
		t.Fatal(err)
	}
	return UpScenario(t, s.Recipe, opts...)
}

// UpScenario is Up for a scenario's recipe the test has changed (its
// settings).
func UpScenario(t *testing.T, s lab.Recipe, opts ...func(*lab.PairOptions)) *lab.Pair {
	t.Helper()
	dir, pgbench := labtest.PGBench(t)
	po := lab.PairOptions{Bin: dir.Bin, PubCPUs: []int{0}, SubCPUs: []int{1}, Rows: 50_000, Binary: true, Streaming: "on"}
	for _, o := range opts {
		o(&po)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, load, err := lab.Up(ctx, s, lab.RunOptions{PGBench: pgbench, Duration: 10 * time.Second, Log: labtest.Log{T: t}, Pair: po})
	if err != nil {
		t.Fatalf("lab up %s: %v", s.Name, err)
	}
	t.Cleanup(func() { load.Stop(); p.Close() })
	return p
}
