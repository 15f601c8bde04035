package sample

import (
	"context"
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/lagscope/lagscope/internal/pg"
)

// DiskStat is the space of the file system holding the publisher's
// pg_wal (statfs, where lagscope runs on the publisher's host).
type DiskStat struct {
	// FreeBytes is what an unprivileged writer may still use (f_bavail),
	// SizeBytes the file system's size.
	FreeBytes int64 `json:"free_bytes"`
	SizeBytes int64 `json:"size_bytes"`
}

// walDir reads the server's pg_wal directory (data_directory needs
// pg_read_all_settings, part of pg_monitor).
func walDir(ctx context.Context, c *pg.Conn) (string, error) {
	var dir string
	if err := c.QueryRow(ctx, pg.Marker+"SELECT current_setting('data_directory')").Scan(&dir); err != nil {
		return "", fmt.Errorf("read data_directory: %w", err)
	}
	return filepath.Join(dir, "pg_wal"), nil
}

// readWALDisk is statfs of dir (a symlinked pg_wal is followed to the file
// system it lives on). Reading it needs search permission on the data
// directory: the server's OS user or root.
func readWALDisk(dir string) (*DiskStat, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return nil, fmt.Errorf("statfs %s: %w", dir, err)
	}
	bs := int64(st.Bsize)
	return &DiskStat{FreeBytes: int64(st.Bavail) * bs, SizeBytes: int64(st.Blocks) * bs}, nil
}
