package recorder

import (
	"fmt"
	"strings"
	"time"
)

// timeForms are the forms ParseWhen reads with a date.
var timeForms = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04"}

// clockForms are the forms ParseWhen reads without a date.
var clockForms = []string{"15:04:05", "15:04"}

// ParseWhen reads a time for --at and --between: RFC 3339
// ("2026-12-05T03:00:00Z"), a date and time in loc ("2026-12-05 03:00"),
// or a time of day in loc ("03:00", "03:00:15"): the last such time at or
// before now.
func ParseWhen(s string, now time.Time, loc *time.Location) (time.Time, error) {
	in := strings.TrimSpace(s)
	for _, f := range timeForms {
		if t, err := time.ParseInLocation(f, in, loc); err == nil {
			return t, nil
		}
	}
	for _, f := range clockForms {
		c, err := time.Parse(f, in)
		if err != nil {
			continue
		}
		n := now.In(loc)
		t := time.Date(n.Year(), n.Month(), n.Day(), c.Hour(), c.Minute(), c.Second(), 0, loc)
		if t.After(now) {
			t = t.AddDate(0, 0, -1)
		}
		return t, nil
	}
	return time.Time{}, fmt.Errorf("time %q: use 03:00, 03:00:15, '2026-12-05 03:00' (local time) or 2026-12-05T03:00:00Z", s)
}

// ParseBetween reads --between FROM,TO (each as ParseWhen reads it; a TO
// of the day before FROM, a clock time past midnight, is the next day's).
func ParseBetween(s string, now time.Time, loc *time.Location) (from, to time.Time, err error) {
	a, b, ok := strings.Cut(s, ",")
	if !ok {
		return from, to, fmt.Errorf("--between %q: give FROM,TO (03:00,03:20 or 2026-12-05T03:00:00Z,2026-12-05T03:20:00Z)", s)
	}
	if from, err = ParseWhen(a, now, loc); err != nil {
		return from, to, err
	}
	if to, err = ParseWhen(b, now, loc); err != nil {
		return from, to, err
	}
	if !to.After(from) && to.AddDate(0, 0, 1).After(from) && isClock(b) {
		to = to.AddDate(0, 0, 1)
	}
	if !to.After(from) {
		return from, to, fmt.Errorf("--between %q: the end is not after the start", s)
	}
	return from, to, nil
}

// isClock says whether s is a time of day without a date.
func isClock(s string) bool {
	for _, f := range clockForms {
		if _, err := time.Parse(f, strings.TrimSpace(s)); err == nil {
			return true
		}
	}
	return false
}
