package cluster

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// writeOwned writes data to dir/name as a file of o's (mode 0600) when dir
// belongs to o, an account that may replace anything in it. The file is
// created under a fresh random name with O_EXCL|O_NOFOLLOW, handed to o
// through its descriptor (fchown), and renamed over name: a symlink or hard
// link planted at name is replaced, never followed, so root writes to
// nothing but the file it just made (the CVE-2017-15097 pattern).
func writeOwned(o Owner, dir, name string, data []byte) (err error) {
	path := filepath.Join(dir, name)
	dfd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("write %s: open its directory: %w", path, err)
	}
	defer unix.Close(dfd)
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := ".lagscope-" + hex.EncodeToString(rnd[:]) + ".tmp"
	fd, err := unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	f := os.NewFile(uintptr(fd), filepath.Join(dir, tmp))
	defer func() {
		if err != nil {
			unix.Unlinkat(dfd, tmp, 0)
		}
	}()
	if !o.IsZero() {
		if err := f.Chown(int(o.UID), int(o.GID)); err != nil {
			f.Close()
			return fmt.Errorf("write %s: give it to user %s: %w", path, o.Name, err)
		}
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := unix.Renameat(dfd, tmp, dfd, name); err != nil {
		return fmt.Errorf("write %s: rename into place: %w", path, err)
	}
	return nil
}

// openLog opens dir/name for appending, creating it 0600, without following
// a symlink; dir must be one only lagscope writes to.
func openLog(dir, name string) (*os.File, error) {
	return os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_WRONLY|os.O_APPEND|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
}
