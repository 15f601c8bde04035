package sample

import "testing"

func TestTheProbeRateFollowsWhatProcShows(t *testing.T) {
	for _, c := range []struct {
		asked    float64
		procRead bool
		want     float64
	}{
		{0, true, ProcProbeHz},
		{0, false, NoProcProbeHz},
		{20, true, 20},
		{5, false, 5},
	} {
		if got := probeHz(c.asked, c.procRead); got != c.want {
			t.Errorf("probeHz(%g, /proc read %v) = %g, want %g", c.asked, c.procRead, got, c.want)
		}
	}
}
