package sample

import (
	"testing"
	"time"
)

// A side's gap runs from its first failed read to the next tick that
// answers (or the run's end), with the first failure's cause: a second
// failure inside the gap moves neither, and with no gap open nothing
// closes.
func TestAGapRunsFromTheFirstFailedRead(t *testing.T) {
	at := time.Date(2026, 12, 2, 4, 0, 0, 0, time.UTC)
	s := &session{name: Subscriber}
	if g, ok := s.closeGap(at); ok {
		t.Fatalf("no read failed, yet a gap closed: %+v", g)
	}
	s.openGap(at.Add(time.Second), "no answer within 3s")   // tick 1's read
	s.openGap(at.Add(1500*time.Millisecond), "conn closed") // a probe, inside the gap
	s.openGap(at.Add(2*time.Second), "connection refused")  // tick 2's reconnect
	g, ok := s.closeGap(at.Add(3 * time.Second))            // tick 3 answers
	want := Gap{Side: Subscriber, From: at.Add(time.Second), To: at.Add(3 * time.Second), Cause: "no answer within 3s"}
	if !ok || g != want {
		t.Fatalf("gap %+v (closed %v), want %+v", g, ok, want)
	}
	if g, ok := s.closeGap(at.Add(4 * time.Second)); ok {
		t.Errorf("a closed gap closed again: %+v", g)
	}
	s.openGap(at.Add(5*time.Second), "connection refused")
	if g, ok := s.closeGap(at.Add(6 * time.Second)); !ok || g.From != at.Add(5*time.Second) || g.Cause != "connection refused" {
		t.Errorf("the next gap %+v (closed %v), want from 5s for its own cause", g, ok)
	}
}
