package proc

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// setSize is CPU_SETSIZE, how many CPUs unix.CPUSet holds (0 to 1023). Hosts
// with more CPUs are not supported.
const setSize = 1024

// Allowed returns the CPUs the thread pid may run on (sched_getaffinity),
// sorted. For a process that is its main thread, which for a PostgreSQL backend
// is the whole process; pid 0 means the calling thread. A missing process gives
// an error matching ErrNoProcess.
func Allowed(pid int) ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(pid, &set); err != nil {
		return nil, affinityErr(fmt.Sprintf("read the CPU affinity of process %d", pid), err)
	}
	return cpusIn(&set), nil
}

// Pin restricts the thread pid to cpus (sched_setaffinity), like taskset -pc.
// It moves a running process: the kernel migrates it at once if its current CPU
// is not in the list. Only the thread pid is pinned; threads it already started
// keep their affinity, threads and processes it starts later inherit the new
// one. pid 0 means the calling thread.
//
// cpus must be non-empty and hold CPUs that exist and are online, each below 1024. Pinning
// another user's process needs root or CAP_SYS_NICE.
func Pin(pid int, cpus []int) error {
	if len(cpus) == 0 {
		return fmt.Errorf("pin process %d: no CPUs given; pass at least one, such as [0]", pid)
	}
	var set unix.CPUSet
	for _, c := range cpus {
		if c < 0 {
			return fmt.Errorf("pin process %d: %d is not a CPU number", pid, c)
		}
		set.Set(c)
		if !set.IsSet(c) {
			return fmt.Errorf("pin process %d: CPU %d is beyond the %d CPUs lagscope can address", pid, c, setSize)
		}
	}
	if err := unix.SchedSetaffinity(pid, &set); err != nil {
		op := fmt.Sprintf("pin process %d to CPUs %s", pid, FormatCPUList(cpus))
		if errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("%s: %w (none of them is online or allowed here; see /sys/devices/system/cpu/online and the cgroup's cpuset)", op, err)
		}
		return affinityErr(op, err)
	}
	return nil
}

// cpusIn lists the CPUs set in set, in increasing order.
func cpusIn(set *unix.CPUSet) []int {
	n := set.Count()
	cpus := make([]int, 0, n)
	for c := 0; len(cpus) < n; c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus
}

// affinityErr wraps a sched_{get,set}affinity error from operation op with what
// to do about it.
func affinityErr(op string, err error) error {
	switch {
	case errors.Is(err, unix.ESRCH):
		return fmt.Errorf("%s: %w", op, ErrNoProcess)
	case errors.Is(err, unix.EPERM):
		return fmt.Errorf("%s: %w (run as the process's owner, or as root)", op, err)
	default:
		return fmt.Errorf("%s: %w", op, err)
	}
}
