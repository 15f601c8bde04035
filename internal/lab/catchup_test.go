package lab

import "testing"

// A standby is behind until it comes within reach of the moving position;
// one that never did while watched was behind at least until the watch
// ended; one never timed was not behind.
func TestBehindIsTheTimeToTheMovingPositionOrAtLeastTheWatch(t *testing.T) {
	for _, c := range []struct {
		c    CatchUp
		want float64
	}{
		{CatchUp{Seconds: 4, CaughtUpSeconds: 11}, 11},
		{CatchUp{Seconds: 4, CaughtUpSeconds: 4}, 4},
		{CatchUp{Seconds: 4}, 34},
		{CatchUp{}, 0},
	} {
		if got := c.c.BehindS(); got != c.want {
			t.Errorf("%+v: behind %.0f s, want %.0f", c.c, got, c.want)
		}
	}
}
