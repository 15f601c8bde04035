package pgversion

import "testing"

func TestAFeatureNeedsItsVersionOnBothSides(t *testing.T) {
	for _, c := range []struct {
		name     string
		pub, sub int
		want     bool
	}{
		{"16 on both sides has parallel apply", 16, 16, true},
		{"a 15 publisher rules it out", 15, 16, false},
		{"a 15 subscriber rules it out", 18, 15, false},
		{"a side not read does not rule it out", 0, 17, true},
		{"neither side read does not rule it out", 0, 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := ParallelApply.OnBoth(c.pub, c.sub); got != c.want {
				t.Errorf("OnBoth(%d, %d) = %v, want %v", c.pub, c.sub, got, c.want)
			}
		})
	}
}
