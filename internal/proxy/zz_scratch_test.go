package proxy

import (
	"context"
	"sort"
	"testing"
	"time"
)

func TestScratchParams(t *testing.T) {
	type cfg struct {
		name         string
		depth, chunk, sock int
	}
	cfgs := []cfg{
		{"base 4x1M sock4M", 4, 1 << 20, 4 << 20},
		{"4x2M sock4M", 4, 2 << 20, 4 << 20},
		{"4x4M sock4M", 4, 4 << 20, 4 << 20},
		{"4x1M autotune", 4, 1 << 20, 0},
	}
	res := make([][]float64, len(cfgs))
	for round := 0; round < 7; round++ {
		for i, c := range cfgs {
			pipelineDepth, unlimitedChunk, unlimitedSocketBuffer = c.depth, c.chunk, c.sock
			var via, direct sample
			for j := 0; j < 2; j++ {
				for _, vp := range [2]bool{j%2 == 0, j%2 != 0} {
					m, err := measure(context.Background(), 0, vp, unlimitedWarmup, time.Second)
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
			res[i] = append(res[i], via.rate()/direct.rate())
		}
	}
	for i, c := range cfgs {
		sort.Float64s(res[i])
		t.Logf("%-20s median ratio %.2f  %v", c.name, res[i][3], res[i])
	}
}
