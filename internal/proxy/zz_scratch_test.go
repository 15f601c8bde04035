package proxy

import (
	"context"
	"testing"
	"time"
)

func TestScratchSegments(t *testing.T) {
	for round := 0; round < 3; round++ {
		for _, seg := range []time.Duration{time.Second, 5 * time.Second} {
			var via, direct sample
			for i := 0; i < int(10*time.Second/seg); i++ {
				for _, vp := range [2]bool{i%2 == 0, i%2 != 0} {
					m, err := measure(context.Background(), 0, vp, unlimitedWarmup, seg)
					if err != nil {
						t.Fatal(err)
					}
					if vp {
						via.add(m)
					} else {
						direct.add(m)
					}
				}
			}
			t.Logf("seg %v: via %.0f direct %.0f ratio %.2f", seg, via.rate()/1e6, direct.rate()/1e6, via.rate()/direct.rate())
		}
	}
}
