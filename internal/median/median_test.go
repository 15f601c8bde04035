package median

import (
	"math"
	"testing"
)

func TestOfTakesTheMiddleOrTheMeanOfTheTwoMiddleValues(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{7}, 7},
	} {
		in := append([]float64(nil), c.xs...)
		if got := Of(c.xs); got != c.want {
			t.Errorf("Of(%v) = %g, want %g", c.xs, got, c.want)
		}
		for i := range in {
			if in[i] != c.xs[i] {
				t.Errorf("Of changed its input: %v, was %v", c.xs, in)
			}
		}
	}
	if got := Of([]int64{10, 30}); got != 20 {
		t.Errorf("Of(int64 10, 30) = %g, want 20", got)
	}
	if !math.IsNaN(Of([]float64(nil))) || !math.IsNaN(SpreadOf(nil).Median) {
		t.Error("the median of nothing must be NaN")
	}
	if s := SpreadOf([]float64{5, 1, 9, 3}); s != (Spread{4, 1, 9}) {
		t.Errorf("SpreadOf = %+v, want median 4, min 1, max 9", s)
	}
}
