package lab

import (
	"context"
	"slices"
	"testing"
)

// The pair lifts the steps it holds newest first, once each, whether the
// window ended or the pair closes after a step failed half-way.
func TestLiftAllLiftsHeldStepsInReverseOnce(t *testing.T) {
	var lifted []string
	step := func(name string, fail bool) Step {
		return Step{Name: name,
			Start: func(context.Context, *driver) error {
				if fail {
					return context.Canceled
				}
				return nil
			},
			Lift: func(*Pair) { lifted = append(lifted, name) }}
	}
	p := &Pair{}
	s := Recipe{Steps: []Step{step("lock", false), {Name: "no lift", Start: func(context.Context, *driver) error { return nil }}, step("hogs", false), step("evictor", true), step("never started", false)}}
	if _, err := p.drive(context.Background(), s, RunOptions{}); err == nil {
		t.Fatal("drive ignored a failed step")
	}
	p.liftAll()
	p.liftAll()
	if want := []string{"evictor", "hogs", "lock"}; !slices.Equal(lifted, want) {
		t.Errorf("lifted %v, want %v (newest first, the failed step too, nothing twice, nothing not started)", lifted, want)
	}
}
