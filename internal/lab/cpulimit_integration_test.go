package lab

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/proc"
)

// TestIntegrationCPULimit puts a CPU-bound process in a lab CPU-limit
// cgroup of 0.2 CPU on this machine's kernel: /proc and the cgroup's
// cpu.stat must show it throttled in most periods, and removing the limit
// (with the process still in it) must leave no cgroup behind.
func TestIntegrationCPULimit(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: runs without -short")
	}
	if err := CPULimitAvailable(); err != nil {
		t.Skipf("no cgroup CPU limit here: %v", err)
	}
	name := cpuLimitPrefix + "test-" + filepath.Base(t.TempDir())
	l, err := newCPULimit(name, 0.2)
	if err != nil {
		t.Fatal(err)
	}
	defer l.remove()
	burn := exec.Command("sh", "-c", "while :; do :; done")
	if err := burn.Start(); err != nil {
		t.Fatal(err)
	}
	defer burn.Process.Kill()
	if err := l.add(burn.Process.Pid); err != nil {
		t.Fatal(err)
	}
	fs, err := proc.NewFS("")
	if err != nil {
		t.Fatal(err)
	}
	t0, err := fs.CPUThrottle(burn.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	t1, err := fs.CPUThrottle(burn.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	periods, throttled := t1.Periods-t0.Periods, t1.Throttled-t0.Throttled
	t.Logf("cgroup %s: %d periods, %d throttled, %v held back in 1 s", t1.Cgroup, periods, throttled, t1.ThrottledTime-t0.ThrottledTime)
	if periods < 5 || float64(throttled) < 0.5*float64(periods) {
		t.Errorf("%d of %d periods throttled, want most of them", throttled, periods)
	}
	if err := l.remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(l.dir); !os.IsNotExist(err) {
		t.Errorf("cgroup %s still there after remove (%v)", l.dir, err)
	}
}
