package proc

import (
	"testing"
	"time"
)

func TestHost(t *testing.T) {
	fs := fixtureFS(t)
	got, err := fs.Host()
	if err != nil {
		t.Fatalf("Host: %v", err)
	}
	// cpu  12970 0 22366 44680 278 0 7344 0 0 0
	want := HostSample{
		Busy:  (12970 + 22366 + 7344) * 10 * time.Millisecond, // user + system + softirq
		Total: (12970 + 22366 + 7344 + 44680 + 278) * 10 * time.Millisecond,
		CPUs:  2,
	}
	if got != want {
		t.Errorf("Host() = %+v, want %+v", got, want)
	}
	if !fs.BootTime().Equal(fixtureBoot) {
		t.Errorf("BootTime() = %v, want %v", fs.BootTime(), fixtureBoot)
	}
}

func TestSecondsRoundsBackToTicks(t *testing.T) {
	// procfs divides ticks by 100 in float64; large counts must come back exact.
	for _, ticks := range []int64{0, 1, 3, 44001, 1234567, 987654321} {
		if got, want := seconds(float64(ticks)/ticksPerSecond), time.Duration(ticks)*tick; got != want {
			t.Errorf("seconds(%d ticks) = %v, want %v", ticks, got, want)
		}
	}
}
