package sample

import (
	"testing"
	"time"
)

// The apply work is read at the first tick, then every ApplyWorkEvery, and
// at the window's last tick whatever the cadence.
func TestApplyWorkIsReadEveryFiveSecondsAndAtTheLastTick(t *testing.T) {
	s := &session{}
	t0 := time.Unix(1_800_000_000, 0)
	var read []int
	for k := 0; k <= 12; k++ {
		at := t0.Add(time.Duration(k)*time.Second + time.Duration(k%3)*10*time.Millisecond) // ticks come a little late
		if s.applyWorkDue(at, k == 12) {
			read = append(read, k)
		}
	}
	if want := []int{0, 5, 10, 12}; len(read) != len(want) || read[0] != 0 || read[1] != 5 || read[2] != 10 || read[3] != 12 {
		t.Errorf("read at ticks %v, want %v", read, want)
	}
}
