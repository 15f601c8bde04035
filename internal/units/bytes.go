package units

import (
	"math"
	"strconv"
	"strings"
)

// siUnits are FormatBytes' units, each 1000 times the previous.
var siUnits = []string{"B", "kB", "MB", "GB", "TB", "PB", "EB"}

// FormatBytes prints a byte count n for people, with SI units (1 kB = 1000
// bytes) and about three significant digits: "812 B", "812 kB", "1.5 MB",
// "96 MB", "2 GB". Values below 10 of a unit keep one decimal unless it is
// zero. Negative counts get a leading "-"; NaN and infinities print as
// "NaN B", "+Inf B" and "-Inf B".
func FormatBytes(n float64) string { return formatSI(n, siUnits, " ") }

// countUnits are FormatCount's suffixes, each 1000 times the previous.
var countUnits = []string{"", "k", "M", "G", "T", "P", "E"}

// FormatCount prints a count (rows, scans) as FormatBytes prints bytes,
// with a suffix instead of a unit: "812", "48k", "2.1M".
func FormatCount(n float64) string { return formatSI(n, countUnits, "") }

// formatSI prints n with about three significant digits and the unit of
// names (each 1000 times the previous) after sep.
func formatSI(n float64, names []string, sep string) string {
	if math.IsNaN(n) || math.IsInf(n, 0) {
		return strings.TrimSuffix(strconv.FormatFloat(n, 'f', -1, 64)+sep+names[0], " ")
	}
	sign := ""
	if n < 0 {
		sign, n = "-", -n
	}
	if n >= 999.5e18 {
		// Beyond the units: a number no count reaches, kept short.
		return strings.TrimSuffix(sign+strconv.FormatFloat(n, 'g', 3, 64)+sep+names[0], " ")
	}
	i := 0
	for i < len(names)-1 && math.Round(n) >= 1000 { // would print as 1000 or more
		n /= 1000
		i++
	}
	var s string
	switch {
	case i == 0 || n >= 9.95:
		s = strconv.FormatFloat(math.Round(n), 'f', 0, 64)
	default:
		s = strings.TrimSuffix(strconv.FormatFloat(n, 'f', 1, 64), ".0")
	}
	return strings.TrimSuffix(sign+s+sep+names[i], " ")
}

// MBPerSecond converts a rate in bytes per second to megabytes per second
// (1 MB = 1,000,000 bytes), the unit lagscope's reports use.
func MBPerSecond(bytesPerSec float64) float64 { return bytesPerSec / 1e6 }

// FormatRate prints a rate in bytes per second with a unit that fits its
// size, the one way every lagscope output prints a rate: "14.3 MB/s",
// "612 kB/s" (under 1 MB/s, where one decimal of MB/s would round 0.14 to
// 0.1), "80 B/s", "1.25 GB/s".
func FormatRate(bps float64) string {
	a := math.Abs(bps)
	switch {
	case math.IsNaN(bps) || math.IsInf(bps, 0):
		return FormatBytes(bps) + "/s"
	case a >= 999.5e6:
		return strconv.FormatFloat(bps/1e9, 'f', 2, 64) + " GB/s"
	case a >= 0.9995e6:
		return strconv.FormatFloat(bps/1e6, 'f', 1, 64) + " MB/s"
	case a >= 999.5:
		return strconv.FormatFloat(bps/1e3, 'f', 0, 64) + " kB/s"
	}
	return strconv.FormatFloat(bps, 'f', 0, 64) + " B/s"
}
