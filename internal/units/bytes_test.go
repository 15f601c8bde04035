package units

import (
	"math"
	"testing"
)

func TestFormatBytes(t *testing.T) {
	tests := []struct {
		name string
		in   float64
		want string
	}{
		{"zero is zero bytes", 0, "0 B"},
		{"small counts print in bytes", 812, "812 B"},
		{"fractional bytes round", 812.6, "813 B"},
		{"kilobytes have no decimals above ten", 812_000, "812 kB"},
		{"a megabyte and a half keeps one decimal", 1_500_000, "1.5 MB"},
		{"a whole number below ten drops the .0", 2_000_000, "2 MB"},
		{"tens of megabytes have no decimals", 96_000_000, "96 MB"},
		{"values that round to 1000 move up a unit", 999_700, "1 MB"},
		{"9.96 rounds up to ten without a decimal", 9_960_000, "10 MB"},
		{"gigabytes print in GB", 3_250_000_000, "3.2 GB"},
		{"negative counts keep their sign", -1_500_000, "-1.5 MB"},
		{"NaN prints as NaN", math.NaN(), "NaN B"},
		{"exabytes are the last unit", 999e18, "999 EB"},
		{"beyond the units a number stays short (found by FuzzFormatBytes)", math.MaxFloat64, "1.8e+308 B"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FormatBytes(tt.in); got != tt.want {
				t.Errorf("FormatBytes(%v) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestMBPerSecond(t *testing.T) {
	tests := []struct {
		name string
		in   float64
		want float64
	}{
		{"a megabyte is a million bytes", 1e6, 1},
		{"eight million bytes are 8 MB", 8e6, 8},
		{"a mebibyte is slightly more than a megabyte", 1 << 20, 1.048576},
		{"zero is zero", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MBPerSecond(tt.in); got != tt.want {
				t.Errorf("MBPerSecond(%v) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestFormatRateFitsTheUnitToTheSize(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{
		{14.3e6, "14.3 MB/s"}, {0.14e6, "140 kB/s"}, {999_400, "999 kB/s"}, {999_600, "1.0 MB/s"},
		{80, "80 B/s"}, {0, "0 B/s"}, {1.25e9, "1.25 GB/s"}, {-2.5e6, "-2.5 MB/s"}, {-300, "-300 B/s"},
	} {
		if got := FormatRate(c.in); got != c.want {
			t.Errorf("FormatRate(%g) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestFormatCount(t *testing.T) {
	tests := []struct {
		name string
		in   float64
		want string
	}{
		{"small counts print whole", 812, "812"},
		{"thousands print with k", 48_200, "48k"},
		{"millions keep one decimal below ten", 2_140_000, "2.1M"},
		{"a whole number below ten drops the .0", 3_000_000, "3M"},
		{"NaN prints as NaN", math.NaN(), "NaN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FormatCount(tt.in); got != tt.want {
				t.Errorf("FormatCount(%v) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
