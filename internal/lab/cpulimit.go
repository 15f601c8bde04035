package lab

import (
	"errors"

	"fmt"
	"github.com/lagscope/lagscope/internal/lab/cluster"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// cgroupRoot is where the lab makes its CPU-limit cgroups.
var cgroupRoot = "/sys/fs/cgroup"

// cpuLimitPrefix starts the name of every cgroup the lab makes (named after
// its lab directory), so that 'lab clean' can find those a killed run left.
const cpuLimitPrefix = "lagscope-lab-"

// cpuLimit is a cgroup with a CPU quota that the lab made for one server:
// processes the server forks after its postmaster joined share the quota,
// as a container's CPU limit would cap them.
type cpuLimit struct {
	dir    string // the cgroup's directory
	parent string // where its processes go back to on removal
}

// cpuPeriodUs is the quota's enforcement period, the kernel's default.
const cpuPeriodUs = 100000

// newCPULimit makes the cgroup name (a lab directory's name, which starts
// with cpuLimitPrefix) with a quota of cpus CPUs, in the cgroup v2 hierarchy when its cpu controller is
// enabled at the root, else in v1's cpu hierarchy. It needs root.
func newCPULimit(name string, cpus float64) (*cpuLimit, error) {
	quota := int64(cpus * cpuPeriodUs)
	if quota < 1000 {
		return nil, fmt.Errorf("CPU limit %.3f CPUs: use at least 0.01", cpus)
	}
	if ctl, err := os.ReadFile(filepath.Join(cgroupRoot, "cgroup.subtree_control")); err == nil && hasWord(string(ctl), "cpu") {
		l := &cpuLimit{dir: filepath.Join(cgroupRoot, name), parent: cgroupRoot}
		return l, l.make("cpu.max", fmt.Sprintf("%d %d", quota, cpuPeriodUs))
	}
	v1 := filepath.Join(cgroupRoot, "cpu")
	if _, err := os.Stat(filepath.Join(v1, "cpu.cfs_quota_us")); err != nil {
		return nil, errors.New("no cgroup CPU controller to limit the server with (neither cgroup v2 with cpu enabled at the root nor v1's cpu hierarchy under /sys/fs/cgroup)")
	}
	l := &cpuLimit{dir: filepath.Join(v1, name), parent: v1}
	if err := l.make("cpu.cfs_period_us", strconv.Itoa(cpuPeriodUs)); err != nil {
		return l, err
	}
	return l, os.WriteFile(filepath.Join(l.dir, "cpu.cfs_quota_us"), []byte(strconv.FormatInt(quota, 10)), 0o644)
}

func (l *cpuLimit) make(file, value string) error {
	if err := os.Mkdir(l.dir, 0o755); err != nil {
		return fmt.Errorf("make cgroup %s (needs root): %w", l.dir, err)
	}
	if err := os.WriteFile(filepath.Join(l.dir, file), []byte(value), 0o644); err != nil {
		return fmt.Errorf("set %s of cgroup %s: %w", file, l.dir, err)
	}
	return nil
}

// add moves a process into the cgroup; what it forks afterwards is born
// there.
func (l *cpuLimit) add(pid int) error {
	if err := os.WriteFile(filepath.Join(l.dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644); err != nil {
		return fmt.Errorf("move pid %d into cgroup %s: %w", pid, l.dir, err)
	}
	return nil
}

// lift removes the quota (the cgroup stays until remove): the backlog then
// drains at full speed.
func (l *cpuLimit) lift() error {
	if l == nil {
		return nil
	}
	if _, err := os.Stat(filepath.Join(l.dir, "cpu.max")); err == nil {
		return os.WriteFile(filepath.Join(l.dir, "cpu.max"), []byte(fmt.Sprintf("max %d", cpuPeriodUs)), 0o644)
	}
	return os.WriteFile(filepath.Join(l.dir, "cpu.cfs_quota_us"), []byte("-1"), 0o644)
}

// remove moves what still runs in the cgroup back to its parent and
// removes it.
func (l *cpuLimit) remove() error {
	if l == nil {
		return nil
	}
	return removeCgroup(l.dir, l.parent)
}

func removeCgroup(dir, parent string) error {
	if b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs")); err == nil {
		for _, pid := range strings.Fields(string(b)) {
			os.WriteFile(filepath.Join(parent, "cgroup.procs"), []byte(pid), 0o644)
		}
	}
	if err := os.Remove(dir); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("remove cgroup %s: %w", dir, err)
	}
	return nil
}

// CleanCPULimits removes the CPU-limit and disk-read-limit cgroups of lab directories that no
// longer exist under base ("" = cluster.BaseDir()): what a run killed with
// SIGKILL left. It returns what it removed.
func CleanCPULimits(base string) []string {
	if base == "" {
		base = cluster.BaseDir()
	}
	labExists := func(name string) bool {
		_, err := os.Stat(filepath.Join(base, name))
		return err == nil
	}
	var out []string
	for _, parent := range []string{cgroupRoot, filepath.Join(cgroupRoot, "cpu"), filepath.Join(cgroupRoot, "blkio")} {
		dirs, _ := filepath.Glob(filepath.Join(parent, cpuLimitPrefix+"*"))
		for _, d := range dirs {
			if labExists(filepath.Base(d)) {
				continue
			}
			if removeCgroup(d, parent) == nil {
				out = append(out, d)
			}
		}
	}
	return out
}

func hasWord(s, w string) bool { return slices.Contains(strings.Fields(s), w) }

// CPULimitAvailable says why the lab cannot put a server under a CPU limit
// here (nil when it can): it makes and removes a probe cgroup.
func CPULimitAvailable() error {
	l, err := newCPULimit(fmt.Sprintf("%sprobe-%d", cpuLimitPrefix, os.Getpid()), 0.5)
	if l != nil {
		if rerr := l.remove(); err == nil {
			err = rerr
		}
	}
	return err
}
