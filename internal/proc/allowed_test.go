package proc

import (
	"errors"
	"testing"
)

// The CPUs a process may run on: its affinity, narrowed by its cgroup's
// cpuset and its CPU quota rounded down, each named when it narrows.
func TestAllowedCPUsNarrowsAffinityByCpusetAndQuota(t *testing.T) {
	fs, err := NewFS("testdata/cgroup/proc")
	if err != nil {
		t.Fatal(err)
	}
	fs = fs.WithCgroupRoot("testdata/cgroup/sys")
	for _, c := range []struct {
		pid  int
		want Allowed
		what string
	}{
		{400, Allowed{1, "cpu.max"}, "v2: affinity 0-3, cpuset 1-2, cpu.max 1.5 CPUs (its parent max): 1"},
		{500, Allowed{1, "cpuset"}, "v1: affinity 0-3, cpuset 1, cfs quota -1 (none): 1"},
		{600, Allowed{1, "affinity"}, "affinity 1, the root cgroup without files: 1"},
	} {
		got, err := fs.AllowedCPUs(c.pid)
		if err != nil || got != c.want {
			t.Errorf("%s: %+v, %v; want %+v", c.what, got, err, c.want)
		}
	}
	if _, err := fs.AllowedCPUs(100); err == nil {
		t.Errorf("a status without Cpus_allowed_list: want an error")
	}
	if _, err := fs.AllowedCPUs(999); !errors.Is(err, ErrNoProcess) {
		t.Errorf("missing pid: %v, want ErrNoProcess", err)
	}
}
