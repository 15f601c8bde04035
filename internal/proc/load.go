package proc

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

// ProcCPU is one process's cumulative CPU time (utime+stime of
// /proc/<pid>/stat, 10 ms steps) with what identifies it: the competing
// load on a starved process's CPUs is the difference of two readings.
type ProcCPU struct {
	PID   int
	Comm  string
	CPU   time.Duration
	Start time.Time
	// Allowed are the CPUs the process may run on (Allowed).
	Allowed []int
}

// Allowed reads the CPUs process pid may run on: Cpus_allowed_list of
// /proc/<pid>/status, which already holds both its affinity
// (sched_setaffinity, taskset) and its cgroup's cpuset. It is the only
// reader of a process's allowed CPUs in this package; keep it small.
func (fs FS) Allowed(pid int) ([]int, error) {
	data, err := os.ReadFile(filepath.Join(fs.root, strconv.Itoa(pid), "status"))
	if err != nil {
		return nil, fs.processErr(pid, "status", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte("Cpus_allowed_list:")); ok {
			cpus, err := ParseCPUList(string(v))
			if err != nil {
				return nil, fmt.Errorf("read %s/%d/status: %w", fs.root, pid, err)
			}
			return cpus, nil
		}
	}
	return nil, fmt.Errorf("read %s/%d/status: no Cpus_allowed_list line", fs.root, pid)
}

// Load reads the CPU time of every process of the host that may run on
// one of cpus (every process when cpus is empty), sorted by pid. A process
// that exits while being read, or whose files are not readable, is left
// out: the load is a best-effort census, not a figure of one process.
func (fs FS) Load(cpus []int) ([]ProcCPU, error) {
	procs, err := fs.proc.AllProcs()
	if err != nil {
		return nil, fmt.Errorf("list the processes in %s: %w", fs.root, err)
	}
	var out []ProcCPU
	for _, p := range procs {
		allowed, err := fs.Allowed(p.PID)
		if err != nil || (len(cpus) > 0 && !Intersect(allowed, cpus)) {
			continue
		}
		st, err := p.Stat()
		if err != nil {
			continue
		}
		out = append(out, ProcCPU{PID: p.PID, Comm: st.Comm, CPU: time.Duration(st.UTime+st.STime) * tick,
			Start: fs.boot.Add(time.Duration(st.Starttime) * tick), Allowed: allowed})
	}
	slices.SortFunc(out, func(a, b ProcCPU) int { return a.PID - b.PID })
	return out, nil
}

// Intersect reports whether the sorted CPU lists a and b share a CPU.
func Intersect(a, b []int) bool {
	for _, c := range a {
		if _, ok := slices.BinarySearch(b, c); ok {
			return true
		}
	}
	return false
}
