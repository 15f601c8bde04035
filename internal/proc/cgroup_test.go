package proc

import (
	"errors"
	"testing"
	"time"
)

func TestCPUThrottleReadsV1AndV2(t *testing.T) {
	fs, err := NewFS("testdata/cgroup/proc")
	if err != nil {
		t.Fatal(err)
	}
	fs = fs.WithCgroupRoot("testdata/cgroup/sys")
	// cgroup v1, the cpu controller (this VM's layout: a hybrid host).
	v1, err := fs.CPUThrottle(100)
	if err != nil || v1.Cgroup != "/lagscope-lab" || v1.Periods != 1200 || v1.Throttled != 1011 || v1.ThrottledTime != 65871234567 {
		t.Errorf("v1: %+v, %v", v1, err)
	}
	// cgroup v2: throttled_usec.
	v2, err := fs.CPUThrottle(200)
	if err != nil || v2.Periods != 500 || v2.Throttled != 120 || v2.ThrottledTime != 4500*time.Millisecond {
		t.Errorf("v2: %+v, %v", v2, err)
	}
	// The root cgroup of v2 has no bandwidth counters: not readable.
	if _, err := fs.CPUThrottle(300); err == nil {
		t.Errorf("root cgroup without nr_periods: want an error")
	}
	if _, err := fs.CPUThrottle(999); !errors.Is(err, ErrNoProcess) {
		t.Errorf("missing pid: %v, want ErrNoProcess", err)
	}
}
