package units

import "testing"

func TestFormatSeconds(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{{0.25, "0.2 s"}, {9.94, "9.9 s"}, {77.4, "77 s"}, {840, "14 min"}, {3 * 3600, "3.0 h"}} {
		if got := FormatSeconds(c.in); got != c.want {
			t.Errorf("FormatSeconds(%g) = %q, want %q", c.in, got, c.want)
		}
	}
}
