package units

import (
	"math"
	"testing"
)

// Any text given to --rate either parses to a rate that prints and parses
// back to itself (within the printed precision), or is refused; never a
// panic or a negative rate.
func FuzzParseByteRate(f *testing.F) {
	for _, s := range []string{"8MB/s", "500kB/s", "100Mbit/s", "8MiB/s", "unlimited", "0", "1.5MB/s", "1e3", "9.3EB/s",
		"-1MB/s", "0.1", "1Gbps", " 8 MB/s ", "+.5k", "1..2MB", "NaN", "1e400", "8XB/s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseByteRate(s)
		if err != nil {
			return
		}
		if r < 0 {
			t.Fatalf("ParseByteRate(%q) = %d, negative", s, r)
		}
		back, err := ParseByteRate(r.String())
		if err != nil {
			t.Fatalf("ParseByteRate(%q) = %d prints as %q, which does not parse: %v", s, r, r.String(), err)
		}
		if d := math.Abs(float64(back-r)) / math.Max(float64(r), 1); d > 0.01 {
			t.Fatalf("ParseByteRate(%q) = %d prints as %q, which parses to %d", s, r, r.String(), back)
		}
	})
}

// FormatBytes prints every number as digits and a unit.
func FuzzFormatBytes(f *testing.F) {
	for _, n := range []float64{0, 999.5, 1e3, 1.05e9, -4096, math.MaxFloat64, math.SmallestNonzeroFloat64} {
		f.Add(n)
	}
	f.Fuzz(func(t *testing.T, n float64) {
		if s := FormatBytes(n); len(s) < 3 || len(s) > 12 {
			t.Fatalf("FormatBytes(%g) = %q", n, s)
		}
	})
}
