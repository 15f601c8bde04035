package units

import "fmt"

// FormatSeconds prints a duration given in seconds briefly: "2.1 s",
// "77 s", "14 min", "3.2 h".
func FormatSeconds(s float64) string {
	switch {
	case s < 10:
		return fmt.Sprintf("%.1f s", s)
	case s < 600:
		return fmt.Sprintf("%.0f s", s)
	case s < 3*3600:
		return fmt.Sprintf("%.0f min", s/60)
	default:
		return fmt.Sprintf("%.1f h", s/3600)
	}
}

// Percent prints a share (0.25) as a whole percentage ("25%"); callers mark
// an unknown share (negative) their own way.
func Percent(share float64) string { return fmt.Sprintf("%.0f%%", 100*share) }
