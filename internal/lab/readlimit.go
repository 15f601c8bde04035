package lab

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lagscope/lagscope/internal/lab/cluster"
	"golang.org/x/sys/unix"
)

// readLimit is a cgroup the lab made with a cap on one block device's read
// rate (a cloud volume's throughput limit): processes the server forks
// after its postmaster joined read from that device at most at that rate.
type readLimit struct {
	cpuLimit        // the cgroup's directories (the same bookkeeping)
	dev      string // MAJ:MIN of the whole disk
	v2       bool
}

// newReadLimit makes the cgroup name (a lab directory's name) capping reads
// from the disk that holds path at bps bytes/s, in the cgroup v2 hierarchy
// when its io controller is enabled at the root, else in v1's blkio
// hierarchy. It needs root and a block device under path (not tmpfs or
// overlay).
func newReadLimit(name, path string, bps int64) (*readLimit, error) {
	dev, err := diskOf(path)
	if err != nil {
		return nil, err
	}
	if ctl, err := os.ReadFile(filepath.Join(cgroupRoot, "cgroup.subtree_control")); err == nil && hasWord(string(ctl), "io") {
		l := &readLimit{cpuLimit: cpuLimit{dir: filepath.Join(cgroupRoot, name), parent: cgroupRoot}, dev: dev, v2: true}
		return l, l.make("io.max", fmt.Sprintf("%s rbps=%d", dev, bps))
	}
	v1 := filepath.Join(cgroupRoot, "blkio")
	if _, err := os.Stat(filepath.Join(v1, "blkio.throttle.read_bps_device")); err != nil {
		return nil, errors.New("no cgroup I/O controller to limit the server's reads with (neither cgroup v2 with io enabled at the root nor v1's blkio hierarchy under /sys/fs/cgroup)")
	}
	l := &readLimit{cpuLimit: cpuLimit{dir: filepath.Join(v1, name), parent: v1}, dev: dev}
	return l, l.make("blkio.throttle.read_bps_device", fmt.Sprintf("%s %d", dev, bps))
}

// lift removes the cap (the cgroup stays until remove): the backlog then
// drains at the disk's speed.
func (l *readLimit) lift() error {
	if l == nil {
		return nil
	}
	file, value := "blkio.throttle.read_bps_device", l.dev+" 0"
	if l.v2 {
		file, value = "io.max", l.dev+" rbps=max"
	}
	return os.WriteFile(filepath.Join(l.dir, file), []byte(value), 0o644)
}

// remove is cpuLimit's, for a nil *readLimit too.
func (l *readLimit) remove() error {
	if l == nil {
		return nil
	}
	return l.cpuLimit.remove()
}

// diskOf returns the MAJ:MIN of the whole disk holding path (a partition's
// parent disk: throttling rules apply to whole disks).
func diskOf(path string) (string, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return "", fmt.Errorf("stat %s: %w", path, err)
	}
	dev := fmt.Sprintf("%d:%d", unix.Major(st.Dev), unix.Minor(st.Dev))
	sys := filepath.Join("/sys/dev/block", dev)
	if _, err := os.Stat(sys); err != nil {
		return "", fmt.Errorf("%s is on device %s, not a block device (tmpfs, overlay?): no disk read rate to cap", path, dev)
	}
	if _, err := os.Stat(filepath.Join(sys, "partition")); err == nil {
		b, err := os.ReadFile(filepath.Join(sys, "..", "dev"))
		if err != nil {
			return "", fmt.Errorf("find the disk of partition %s: %w", dev, err)
		}
		dev = strings.TrimSpace(string(b))
	}
	return dev, nil
}

// evictWALFiles drops the server's WAL files from the page cache (flushing
// them first), so that a walsender must read them from disk: as on a
// server whose memory went to other files since the WAL was written.
func evictWALFiles(dataDir string) error {
	files, err := filepath.Glob(filepath.Join(dataDir, "pg_wal", "0*"))
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := evictFile(f); err != nil {
			return err
		}
	}
	return nil
}

// ReadLimitAvailable says why the lab cannot cap a server's disk reads for
// a data directory under base ("" = cluster.BaseDir()) here (nil when it
// can): it makes and removes a probe cgroup.
func ReadLimitAvailable(base string) error {
	if base == "" {
		base = cluster.BaseDir()
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return err
	}
	l, err := newReadLimit(fmt.Sprintf("%sprobe-%d", cpuLimitPrefix, os.Getpid()), base, 1<<20)
	if l != nil {
		if rerr := l.remove(); err == nil {
			err = rerr
		}
	}
	return err
}
