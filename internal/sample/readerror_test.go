package sample

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/pg"
)

// A best-effort read that does not answer within pg.ReadTimeout is
// recorded on the tick as a read error that says so; one that works, or
// the run's own end, records nothing.
func TestABestEffortReadThatTimesOutIsRecorded(t *testing.T) {
	var tk Tick
	_, err := bestEffort(context.Background(), func(ctx context.Context) ([]Blocker, error) {
		<-ctx.Done() // a pg_blocking_pids that never answers
		return nil, ctx.Err()
	})
	tk.noteReadError(Subscriber, SourceBlockers, err)
	var na pg.NoAnswer
	if !errors.As(err, &na) {
		t.Fatalf("error %v, want pg.NoAnswer", err)
	}
	if len(tk.ReadErrors) != 1 || tk.ReadErrors[0].Source != SourceBlockers || !strings.Contains(tk.ReadErrors[0].Err, "no answer within 3s") {
		t.Fatalf("read errors %+v, want the blocker read's timeout", tk.ReadErrors)
	}
	blockers, err := bestEffort(context.Background(), func(context.Context) ([]Blocker, error) { return []Blocker{{}}, nil })
	tk.noteReadError(Subscriber, SourceBlockers, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = bestEffort(ctx, func(ctx context.Context) ([]float64, error) { return nil, ctx.Err() })
	tk.noteReadError(Publisher, SourceCPUBurst, err)
	if len(blockers) != 1 || len(tk.ReadErrors) != 1 {
		t.Errorf("a read that worked or a cancelled run added read errors: %+v", tk.ReadErrors)
	}
}
