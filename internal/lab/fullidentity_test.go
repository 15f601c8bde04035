package lab

import (
	"testing"
	"time"
)

func TestFullIdentityUpdates(t *testing.T) {
	cases := []struct {
		name     string
		rows     int
		d        time.Duration
		min, max int
	}{
		{"the integration tests' 100k rows and 20 s of apply queue a few thousand updates", 100_000, 20 * time.Second, 5000, 6000},
		{"the default 1M rows and 60 s of apply queue fewer, each scan being longer", 1_000_000, 60 * time.Second, 1600, 1800},
		{"a tiny table is capped so its WAL stays a few MB", 1000, time.Minute, maxFullIdentityUpdates, maxFullIdentityUpdates},
		{"a huge table still queues a backlog", 100_000_000, 10 * time.Second, minFullIdentityUpdates, minFullIdentityUpdates},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if n := fullIdentityUpdates(c.rows, c.d); n < c.min || n > c.max {
				t.Errorf("fullIdentityUpdates(%d, %s) = %d, want %d..%d", c.rows, c.d, n, c.min, c.max)
			}
		})
	}
}
