package proc

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// This process's allowed CPUs, read from the real /proc and cgroups: at
// most its affinity's count (sched_getaffinity), at least 1.
func TestAllowedCPUsOfThisProcess(t *testing.T) {
	fs := liveFS(t)
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Skipf("sched_getaffinity: %v", err)
	}
	a, err := fs.AllowedCPUs(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if a.CPUs < 1 || a.CPUs > set.Count() || a.By == "" {
		t.Errorf("%+v: want 1 to %d CPUs (the affinity's), and what narrows them", a, set.Count())
	}
}
