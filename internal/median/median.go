// Package median is the one median of lagscope's figures: the middle value
// of an odd count, the mean of the two middle values of an even one.
package median

import (
	"math"
	"slices"
)

// Number is what a median is taken of: byte counts, shares, durations.
type Number interface {
	~int64 | ~float64
}

// Of returns the median of xs (NaN when xs is empty); xs is not changed.
func Of[T Number](xs []T) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return float64(s[n/2])
	}
	return (float64(s[n/2-1]) + float64(s[n/2])) / 2
}

// Spread is a sample's median with its smallest and largest values.
type Spread struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// SpreadOf summarises xs (all NaN when xs is empty).
func SpreadOf(xs []float64) Spread {
	if len(xs) == 0 {
		return Spread{math.NaN(), math.NaN(), math.NaN()}
	}
	return Spread{Median: Of(xs), Min: slices.Min(xs), Max: slices.Max(xs)}
}
