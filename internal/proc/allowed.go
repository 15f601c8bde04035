package proc

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Allowed is how many CPUs a process may run on, and what narrows it most.
type Allowed struct {
	// CPUs is the count: its affinity (Cpus_allowed_list), intersected
	// with its cgroup's cpuset when readable, and at most its cgroup's CPU
	// quota rounded down to whole CPUs (at least 1).
	CPUs int
	// By is what narrowed the count last: "affinity" (nothing narrower
	// than the process's own affinity), "cpuset" or "cpu.max" (the quota;
	// v1: cpu.cfs_quota_us).
	By string
}

// AllowedCPUs reads the CPUs process pid may run on: /proc/<pid>/status's
// Cpus_allowed_list, the cpuset of its cgroup (v2 cpuset.cpus.effective, v1
// cpuset.effective_cpus) and the CPU quota of its cgroup and the cgroups
// above it (v2 cpu.max, v1 cpu.cfs_quota_us / cpu.cfs_period_us). A cgroup
// file that cannot be read narrows nothing; an error when the process does
// not exist or its status has no CPU list.
func (fs FS) AllowedCPUs(pid int) (Allowed, error) {
	cpus, err := fs.Allowed(pid)
	if err != nil {
		return Allowed{}, err
	}
	if len(cpus) == 0 {
		return Allowed{}, fmt.Errorf("%s/%d/status: an empty Cpus_allowed_list", fs.root, pid)
	}
	a := Allowed{CPUs: len(cpus), By: "affinity"}
	cg, err := os.ReadFile(filepath.Join(fs.root, strconv.Itoa(pid), "cgroup"))
	if err != nil {
		return a, nil
	}
	set, quota := fs.cgroupCPUs(cg)
	if set != nil {
		n := 0
		for _, c := range cpus {
			if set[c] {
				n++
			}
		}
		if n > 0 && n < a.CPUs {
			a.CPUs, a.By = n, "cpuset"
		}
	}
	if quota > 0 && max(int(quota), 1) < a.CPUs {
		a.CPUs, a.By = max(int(quota), 1), "cpu.max"
	}
	return a, nil
}

// cgroupCPUs reads the cpuset (nil: none readable) and the smallest CPU
// quota in CPUs (0: none) of the cgroups in a /proc/<pid>/cgroup file.
func (fs FS) cgroupCPUs(cgroupFile []byte) (set map[int]bool, quota float64) {
	root := fs.cgroupRoot
	if root == "" {
		root = DefaultCgroupRoot
	}
	sc := bufio.NewScanner(bytes.NewReader(cgroupFile))
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), ":", 3)
		if len(f) != 3 || strings.Contains(f[2], "..") {
			continue
		}
		var setFiles []string
		var quotaOf func(dir string) float64
		switch {
		case f[0] == "0" && f[1] == "":
			setFiles = []string{filepath.Join(root, f[2], "cpuset.cpus.effective"), filepath.Join(root, "unified", f[2], "cpuset.cpus.effective")}
			quotaOf = func(dir string) float64 { return cpuMaxV2(filepath.Join(root, dir, "cpu.max")) }
		case hasController(f[1], "cpuset"):
			setFiles = []string{filepath.Join(root, f[1], f[2], "cpuset.effective_cpus"), filepath.Join(root, "cpuset", f[2], "cpuset.effective_cpus")}
		case hasController(f[1], "cpu"):
			quotaOf = func(dir string) float64 { return cfsQuotaV1(filepath.Join(root, f[1], dir)) }
		}
		for _, p := range setFiles {
			if b, err := os.ReadFile(p); err == nil {
				if cs, err := ParseCPUList(string(b)); err == nil && len(cs) > 0 {
					set = map[int]bool{}
					for _, c := range cs {
						set[c] = true
					}
					break
				}
			}
		}
		if quotaOf == nil {
			continue
		}
		// The smallest quota of the cgroup and those above it.
		for dir := filepath.Clean("/" + f[2]); ; dir = filepath.Dir(dir) {
			if q := quotaOf(dir); q > 0 && (quota == 0 || q < quota) {
				quota = q
			}
			if dir == "/" {
				break
			}
		}
	}
	return set, quota
}

// cpuMaxV2 reads a v2 cpu.max ("$MAX $PERIOD", "max" = none) as CPUs (0:
// none or unreadable).
func cpuMaxV2(path string) float64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) != 2 || f[0] == "max" {
		return 0
	}
	return ratio(f[0], f[1])
}

// cfsQuotaV1 reads a v1 cpu controller's cfs quota over its period as
// CPUs (0: none, -1 quota, or unreadable).
func cfsQuotaV1(dir string) float64 {
	q, err1 := os.ReadFile(filepath.Join(dir, "cpu.cfs_quota_us"))
	p, err2 := os.ReadFile(filepath.Join(dir, "cpu.cfs_period_us"))
	if err1 != nil || err2 != nil {
		return 0
	}
	return ratio(strings.TrimSpace(string(q)), strings.TrimSpace(string(p)))
}

// ratio is quota/period as CPUs (0 when either is not a positive number).
func ratio(quota, period string) float64 {
	q, err1 := strconv.ParseInt(quota, 10, 64)
	p, err2 := strconv.ParseInt(period, 10, 64)
	if err1 != nil || err2 != nil || q <= 0 || p <= 0 {
		return 0
	}
	return float64(q) / float64(p)
}
