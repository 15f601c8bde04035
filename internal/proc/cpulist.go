package proc

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// maxCPU bounds the CPU numbers ParseCPUList accepts, so a typo such as
// "0-4000000000" fails instead of allocating gigabytes. Linux's NR_CPUS is at
// most 8192.
const maxCPU = 1 << 16

// ParseCPUList parses the kernel's CPU list notation, as in
// /sys/devices/system/cpu/online, taskset -c and cpuset.cpus: comma-separated
// CPU numbers and inclusive ranges, "0-2,5" → [0 1 2 5]. Surrounding white
// space is ignored; an empty list gives nil. The result is sorted, without
// duplicates.
func ParseCPUList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var cpus []int
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		first, err := parseCPU(lo)
		if err != nil {
			return nil, fmt.Errorf("CPU list %q: %w", s, err)
		}
		last := first
		if isRange {
			if last, err = parseCPU(hi); err != nil {
				return nil, fmt.Errorf("CPU list %q: %w", s, err)
			}
			if last < first {
				return nil, fmt.Errorf("CPU list %q: range %q runs backwards; write it low-high, as %d-%d", s, part, last, first)
			}
		}
		for c := first; c <= last; c++ {
			cpus = append(cpus, c)
		}
	}
	slices.Sort(cpus)
	return slices.Compact(cpus), nil
}

// parseCPU parses one CPU number.
func parseCPU(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a CPU number; use numbers and ranges such as 0-2,5", s)
	}
	if n >= maxCPU {
		return 0, fmt.Errorf("CPU %d is beyond any machine's CPU count (at most %d)", n, maxCPU-1)
	}
	return n, nil
}

// FormatCPUList writes cpus in the kernel's CPU list notation, merging runs into
// ranges: [0 1 2 5] → "0-2,5". Order and duplicates in cpus do not matter;
// negative numbers are left out. An empty list gives "".
func FormatCPUList(cpus []int) string {
	sorted := slices.Clone(cpus)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	var b strings.Builder
	for i := 0; i < len(sorted); {
		if sorted[i] < 0 {
			i++
			continue
		}
		j := i
		for j+1 < len(sorted) && sorted[j+1] == sorted[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(sorted[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(sorted[j]))
		}
		i = j + 1
	}
	return b.String()
}
