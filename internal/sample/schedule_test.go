package sample

import (
	"testing"
	"time"
)

// The probe loop's plan on a simulated clock over a 10 s window: ticks
// every second that take 30 ms to read, 20 probes a second, each batch
// statement returning 2 ms after its last instant. No instant may fall
// within tickMargin before a tick or while it is read, none after the
// window, instants keep the probe interval, and the loop keeps close to
// its rate.
func TestProbeScheduleLeavesTheTicksAlone(t *testing.T) {
	start := time.Date(2026, 12, 2, 4, 0, 0, 0, time.UTC)
	const (
		tick     = time.Second
		window   = 10 * time.Second
		interval = 50 * time.Millisecond
		readTick = 30 * time.Millisecond
	)
	end := start.Add(window)
	// ticked is the latest tick whose read has finished at now.
	ticked := func(now time.Time) int {
		k := -1
		for start.Add(time.Duration(k+1)*tick+readTick).Compare(now) <= 0 {
			k++
		}
		return k
	}
	var instants []time.Time
	var due time.Time
	batches := 0
	for now := start; now.Before(end); {
		b := nextBatch(now, start, end, due, ticked(now), tick, interval, true)
		if b.n == 0 {
			now = now.Add(5 * time.Millisecond)
			continue
		}
		batches++
		for i := range b.n {
			instants = append(instants, now.Add(time.Duration(i)*interval))
		}
		due = now.Add(time.Duration(b.n) * interval)
		now = instants[len(instants)-1].Add(2 * time.Millisecond)
	}
	for i, in := range instants {
		if !in.Before(end) {
			t.Errorf("instant %v after the window's end", in.Sub(start))
		}
		k := in.Sub(start).Round(tick) // the nearest tick
		if d := in.Sub(start) - k; d > -tickMargin && d < readTick {
			t.Errorf("instant at %v is within %v of the tick at %v", in.Sub(start), d, k)
		}
		if i > 0 && in.Sub(instants[i-1]) < interval {
			t.Errorf("instants %v and %v closer than %v", instants[i-1].Sub(start), in.Sub(start), interval)
		}
	}
	// Per second, what the margins leave: (1 s - 25 ms - 30 ms) / 50 ms
	// = 18.9 instants at most.
	if n := len(instants); n < 170 || n > 200 {
		t.Errorf("%d instants in %v at 20 Hz, want 170-200", n, window)
	}
	if batches < 10 || batches > 20 {
		t.Errorf("%d batches, want about one a tick (10-20)", batches)
	}
}

// A side with no backends to probe, an instant not yet due and a tick not
// yet read all wait; a batch never outlasts probeBatch.
func TestNextBatchWaits(t *testing.T) {
	start := time.Date(2026, 12, 2, 4, 0, 0, 0, time.UTC)
	end := start.Add(time.Minute)
	now := start.Add(1500 * time.Millisecond)
	iv := 50 * time.Millisecond
	cases := []struct {
		name   string
		due    time.Time
		ticked int
		pids   bool
		wantN  int
	}{
		{"ready", time.Time{}, 1, true, 10}, // 1.5 s to 1.975 s: instants at +0, +50 ... +450 ms
		{"no backends", time.Time{}, 1, false, 0},
		{"not due", now.Add(time.Millisecond), 1, true, 0},
		{"tick 1 not read yet", time.Time{}, 0, true, 0},
	}
	for _, c := range cases {
		if b := nextBatch(now, start, end, c.due, c.ticked, time.Second, iv, c.pids); b.n != c.wantN {
			t.Errorf("%s: n = %d, want %d (stop %v)", c.name, b.n, c.wantN, b.stop.Sub(start))
		}
	}
	if b := nextBatch(now, start, now.Add(100*time.Millisecond), time.Time{}, 1, time.Second, iv, true); b.n != 3 {
		t.Errorf("100 ms before the window's end: n = %d, want 3 (+0, +50, +100 ms)", b.n)
	}
	long := nextBatch(start, start, end, time.Time{}, 0, time.Hour, iv, true)
	if last := start.Add(time.Duration(long.n-1) * iv); last.Sub(start) > probeBatch {
		t.Errorf("a batch with no tick near lasts %v, want at most %v", last.Sub(start), probeBatch)
	}
}

// A tick that ran late is followed by the latest tick due, not by every
// tick it overran read back to back.
func TestATickReadLateSkipsTheTicksItOverran(t *testing.T) {
	for _, c := range []struct {
		k       int
		elapsed time.Duration
		want    int
	}{
		{k: 0, elapsed: 20 * time.Millisecond, want: 1},
		{k: 2, elapsed: 2900 * time.Millisecond, want: 3},
		{k: 2, elapsed: 3100 * time.Millisecond, want: 3},
		{k: 2, elapsed: 8160 * time.Millisecond, want: 8},
	} {
		if got := nextTick(c.k, c.elapsed, time.Second); got != c.want {
			t.Errorf("after tick %d at %s: tick %d, want %d", c.k, c.elapsed, got, c.want)
		}
	}
}
