package proc

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/prometheus/procfs"
	"golang.org/x/sys/unix"
)

// DefaultRoot is where Linux mounts procfs; NewFS("") reads it.
const DefaultRoot = "/proc"

// ticksPerSecond is USER_HZ, the unit of the tick counters in /proc/<pid>/stat
// and /proc/stat. Linux fixes it at 100 for user space on every architecture Go
// supports, whatever the kernel's internal HZ; procfs assumes the same.
const ticksPerSecond = 100

// tick is the length of one USER_HZ clock tick.
const tick = time.Second / ticksPerSecond

// ErrNoProcess reports that the process does not exist: it exited, or the pid is
// wrong. Test for it with errors.Is.
var ErrNoProcess = errors.New("no such process (it exited, or the pid is wrong)")

// FS reads one procfs mount. The zero value is not usable; build one with NewFS.
// An FS holds no open files and is safe for concurrent use.
type FS struct {
	proc procfs.FS
	root string
	// boot is the host's boot time, from the btime line of <root>/stat, read once
	// by NewFS. It has whole-second resolution.
	boot time.Time
	// cgroupRoot is where cgroup hierarchies are read ("" = DefaultCgroupRoot).
	cgroupRoot string
}

// NewFS returns an FS reading the procfs mounted at root; "" means DefaultRoot.
// It reads <root>/stat once for the boot time, so it fails when root is not a
// procfs (or a fixture copy of one holding a stat file).
func NewFS(root string) (FS, error) {
	if root == "" {
		root = DefaultRoot
	}
	pfs, err := procfs.NewFS(root)
	if err != nil {
		return FS{}, fmt.Errorf("open procfs at %s: %w (is /proc mounted?)", root, err)
	}
	st, err := pfs.Stat()
	if err != nil {
		return FS{}, fmt.Errorf("read boot time from %s/stat: %w (is /proc mounted?)", root, err)
	}
	return FS{proc: pfs, root: root, boot: time.Unix(int64(st.BootTime), 0)}, nil
}

// Root is the directory this FS reads, "/proc" unless NewFS was given another.
func (fs FS) Root() string { return fs.root }

// BootTime is when the host booted, to the second.
func (fs FS) BootTime() time.Time { return fs.boot }

// gone reports whether err says the process is not there: its /proc directory
// or a file in it vanished (ENOENT) or the kernel no longer knows it (ESRCH).
func gone(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, unix.ESRCH)
}
