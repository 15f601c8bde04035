package monitor

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/diagnose"

	"github.com/lagscope/lagscope/internal/sample"
)

func TestAServerIsDownWhenItsGapIsOpenAtTheStepsEnd(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	end := t0.Add(5 * time.Second)
	ticks := []sample.Tick{{At: t0, Reads: []sample.Read{{Node: sample.PublisherNode, OK: true}, {Node: sample.SubscriberNode, OK: true}}}, {At: t0.Add(time.Second), Reads: []sample.Read{{Node: sample.PublisherNode, OK: true}, {Node: sample.SubscriberNode, OK: false}}},
		{At: t0.Add(4 * time.Second), Reads: []sample.Read{{Node: sample.PublisherNode, OK: false}, {Node: sample.SubscriberNode, OK: false}}}} // the last one cut by the deadline
	cases := []struct {
		name string
		gaps []sample.Gap
		want map[string]bool
	}{
		{"a last tick cut by the step's deadline is not a server down", nil, map[string]bool{}},
		{"a gap open at the end is", []sample.Gap{{Side: sample.Subscriber, From: t0.Add(time.Second), To: end, Cause: "connection refused"}},
			map[string]bool{sample.Subscriber: true}},
		{"a gap closed within the step is not", []sample.Gap{{Side: sample.Subscriber, From: t0.Add(time.Second), To: t0.Add(2 * time.Second)}},
			map[string]bool{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := &sample.Recording{Nodes: sample.PairNodes(sample.Server{}, &sample.Server{}), Start: t0, End: end, Ticks: ticks, Gaps: c.gaps}
			got := stepDown(rec)
			if len(got) != len(c.want) {
				t.Fatalf("down = %v, want %v", got, c.want)
			}
			for side := range c.want {
				if _, ok := got[side]; !ok {
					t.Errorf("down = %v, want %s in it", got, side)
				}
			}
		})
	}
	rec := &sample.Recording{Start: t0, End: end, Nodes: sample.PairNodes(sample.Server{}, &sample.Server{}), Ticks: []sample.Tick{{At: t0, Reads: []sample.Read{{Node: sample.PublisherNode, OK: true}}}}}
	if got := stepDown(rec); got[sample.Subscriber] == "" || len(got) != 1 {
		t.Errorf("a subscriber that never answered: down = %v", got)
	}
}

func TestTrimKeepsTheStepsOfOneWindow(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	var steps []*sample.Recording
	for i := 0; i < 5; i++ {
		s := t0.Add(time.Duration(i) * 10100 * time.Millisecond)
		steps = Trim(append(steps, &sample.Recording{Start: s, End: s.Add(10 * time.Second)}), 30*time.Second)
	}
	if len(steps) != 3 || !steps[0].Start.Equal(t0.Add(2*10100*time.Millisecond)) {
		t.Errorf("kept %d steps from %s, want the last 3", len(steps), steps[0].Start)
	}
}

func TestAServerWithNothingToWatchIsUpAndOneThatCannotBeReadIsDown(t *testing.T) {
	w := &watcher{down: map[string]string{}}
	u := w.failed(Update{Pair: "p"}, fmt.Errorf("%w: the publisher has no logical replication slot", diagnose.ErrNothingToDiagnose))
	if len(u.Down) != 0 || u.Err == nil {
		t.Errorf("no slot left: down %v, err %v; want the server up and the step failed", u.Down, u.Err)
	}
	u = w.failed(Update{Pair: "p"}, errors.New("publisher: read wal_level: permission denied"))
	if u.Down[sample.Publisher] == "" {
		t.Errorf("an unreadable publisher: down %v, want it named", u.Down)
	}
}

func TestTheSideThatFailedAfterConnectingIsTheOneDown(t *testing.T) {
	w := &watcher{down: map[string]string{}}
	cases := []struct {
		name string
		err  error
		down []string // the sides named down
	}{
		{"a subscriber that stops answering", &sample.SideError{Side: sample.Subscriber, Err: errors.New("no answer within 11s")}, []string{sample.Subscriber}},
		{"a publisher whose role lost pg_monitor", &sample.SideError{Side: sample.Publisher, Err: sample.ErrNoWaitVisibility}, []string{sample.Publisher}},
		{"a standby given as the subscriber answered", fmt.Errorf("subscriber: %w: point --subscriber at the primary", diagnose.ErrInRecovery), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u := w.failed(Update{Pair: "p"}, c.err)
			if len(u.Down) != len(c.down) || u.Err == nil {
				t.Fatalf("down %v (err %v), want %v and the step failed", u.Down, u.Err, c.down)
			}
			for _, side := range c.down {
				if u.Down[side] == "" {
					t.Errorf("down %v, want %s named", u.Down, side)
				}
			}
		})
	}
}
