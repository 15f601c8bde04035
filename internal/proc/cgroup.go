package proc

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DefaultCgroupRoot is where Linux mounts the cgroup hierarchies.
const DefaultCgroupRoot = "/sys/fs/cgroup"

// Throttle is the CPU bandwidth control of the cgroup a process runs in
// (a container's CPU limit: cgroup v2 cpu.max, v1 cpu.cfs_quota_us), as
// cumulative counters from its cpu.stat.
type Throttle struct {
	// Cgroup is the cgroup's path below its hierarchy's root.
	Cgroup string
	// Periods is the number of enforcement periods (100 ms by default) in
	// which the cgroup wanted CPU; Throttled how many of them ran out of
	// quota. Both stay 0 when no quota is set.
	Periods, Throttled int64
	// ThrottledTime is how long the cgroup's runnable tasks were held back.
	ThrottledTime time.Duration
}

// WithCgroupRoot returns a copy of fs that reads cgroup hierarchies below
// dir (a fixture in tests); NewFS reads DefaultCgroupRoot.
func (fs FS) WithCgroupRoot(dir string) FS {
	fs.cgroupRoot = dir
	return fs
}

// CPUThrottle reads the CPU bandwidth counters of the cgroup pid runs in:
// cgroup v2's cpu.stat (nr_periods, nr_throttled, throttled_usec), or v1's
// cpu controller (nr_periods, nr_throttled, throttled_time in ns). An error
// when pid does not exist or its cgroup's cpu.stat cannot be read (no cpu
// controller there).
func (fs FS) CPUThrottle(pid int) (Throttle, error) {
	data, err := os.ReadFile(filepath.Join(fs.root, strconv.Itoa(pid), "cgroup"))
	if err != nil {
		if os.IsNotExist(err) {
			return Throttle{}, fmt.Errorf("read %s/%d/cgroup: %w", fs.root, pid, ErrNoProcess)
		}
		return Throttle{}, err
	}
	root := fs.cgroupRoot
	if root == "" {
		root = DefaultCgroupRoot
	}
	var tried []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		// hierarchy-ID:controller-list:path
		f := strings.SplitN(sc.Text(), ":", 3)
		if len(f) != 3 {
			continue
		}
		var dirs []string
		switch {
		case f[0] == "0" && f[1] == "":
			// v2 (unified), mounted at the root or, on hybrid
			// hosts, at unified/.
			dirs = []string{filepath.Join(root, f[2]), filepath.Join(root, "unified", f[2])}
		case hasController(f[1], "cpu"):
			dirs = []string{filepath.Join(root, f[1], f[2]), filepath.Join(root, "cpu", f[2]), filepath.Join(root, "cpu,cpuacct", f[2])}
		default:
			continue
		}
		for _, d := range dirs {
			tried = append(tried, d)
			if t, err := readCPUStat(filepath.Join(d, "cpu.stat")); err == nil {
				t.Cgroup = f[2]
				return t, nil
			}
		}
	}
	return Throttle{}, fmt.Errorf("no readable cpu.stat for pid %d (tried %s)", pid, strings.Join(tried, ", "))
}

func hasController(list, name string) bool { return slices.Contains(strings.Split(list, ","), name) }

// readCPUStat reads a cgroup cpu.stat; one without throttling counters
// (v2 without the cpu controller enabled) is an error.
func readCPUStat(path string) (Throttle, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Throttle{}, err
	}
	t, ok := parseCPUStat(data)
	if !ok {
		return Throttle{}, fmt.Errorf("%s: no nr_periods (no cpu controller)", path)
	}
	return t, nil
}

// parseCPUStat parses cpu.stat's "key value" lines (v1 and v2); ok is
// false without nr_periods. Lines it does not know are skipped.
func parseCPUStat(data []byte) (t Throttle, ok bool) {
	for _, line := range strings.Split(string(data), "\n") {
		k, v, cut := strings.Cut(line, " ")
		if !cut {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 0 {
			continue
		}
		switch k {
		case "nr_periods":
			t.Periods, ok = n, true
		case "nr_throttled":
			t.Throttled = n
		case "throttled_usec": // v2
			t.ThrottledTime = time.Duration(min(n, math.MaxInt64/int64(time.Microsecond))) * time.Microsecond
		case "throttled_time": // v1, nanoseconds
			t.ThrottledTime = time.Duration(n)
		}
	}
	return t, ok
}
