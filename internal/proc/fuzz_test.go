package proc

import (
	"slices"
	"testing"
)

// A cgroup's cpu.stat of any content parses to counters that are never
// negative, or to "no cpu controller".
func FuzzParseCPUStat(f *testing.F) {
	f.Add([]byte("nr_periods 120\nnr_throttled 80\nthrottled_time 4000000000\n"))
	f.Add([]byte("usage_usec 100\nuser_usec 60\nsystem_usec 40\nnr_periods 10\nnr_throttled 2\nthrottled_usec 9223372036854775807\n"))
	f.Add([]byte("nr_periods -1\nnr_throttled x\n"))
	f.Add([]byte("usage_usec 5\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		th, ok := parseCPUStat(b)
		if th.Periods < 0 || th.Throttled < 0 || th.ThrottledTime < 0 {
			t.Fatalf("parseCPUStat(%q) = %+v", b, th)
		}
		if !ok && th.Periods != 0 {
			t.Fatalf("parseCPUStat(%q) = %+v without nr_periods", b, th)
		}
	})
}

// A CPU list ("0-2,5", taskset -c, cpuset.cpus) parses to sorted distinct
// CPUs that print back to a list that parses to the same CPUs.
func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{"0", "0-3", "0-2,5", "1,1", "3-1", "", " 0 , 1 ", "0-1000000", "-1", "1-", ",", "0-3\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cpus, err := ParseCPUList(s)
		if err != nil {
			return
		}
		if !slices.IsSorted(cpus) || len(slices.Compact(slices.Clone(cpus))) != len(cpus) {
			t.Fatalf("ParseCPUList(%q) = %v, not sorted and distinct", s, cpus)
		}
		back, err := ParseCPUList(FormatCPUList(cpus))
		if err != nil || !slices.Equal(back, cpus) {
			t.Fatalf("ParseCPUList(%q) = %v prints as %q, which parses to %v (%v)", s, cpus, FormatCPUList(cpus), back, err)
		}
	})
}
