package safefile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Mode is the permission of every file this package writes: the owner's
// alone.
const Mode os.FileMode = 0o600

// File is a file being written under a temporary name; Close puts it in
// place, Abort drops it. It is an io.WriteCloser. The zero value is not
// usable: call Create.
type File struct {
	f    *os.File
	path string // the target
	done bool
}

// Create starts a file that Close will put at path: the data is written to
// a new 0600 file created with O_EXCL under a random name in path's
// directory.
func Create(path string) (*File, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if base == "" {
		return nil, fmt.Errorf("%s: a file name is needed, not a directory", path)
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp") // O_EXCL, 0600
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(Mode); err != nil { // not widened by the umask, but say it
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &File{f: f, path: path}, nil
}

// Write writes p to the temporary file.
func (f *File) Write(p []byte) (int, error) { return f.f.Write(p) }

// Name is the path Close will put the file at.
func (f *File) Name() string { return f.path }

// Close syncs the temporary file and renames it onto the target, replacing
// what was there (a symlink itself, not its target). On an error nothing is
// left in place of the target and the temporary file is removed. A second
// Close, or a Close after Abort, does nothing.
func (f *File) Close() error {
	if f.done {
		return nil
	}
	f.done = true
	tmp := f.f.Name()
	err := f.f.Sync()
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		if fi, serr := os.Lstat(f.path); serr == nil && fi.IsDir() {
			err = fmt.Errorf("%s is a directory", f.path)
		}
	}
	if err == nil {
		err = os.Rename(tmp, f.path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	return nil
}

// Abort drops the file: the temporary file is removed and the target left
// as it was. It does nothing after Close.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.f.Close()
	os.Remove(f.f.Name())
}

// WriteFile writes data to path as Create, Write and Close do.
func WriteFile(path string, data []byte) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// WriteTo writes what write produces to path as WriteFile does; when write
// fails, the target is left as it was.
func WriteTo(path string, write func(io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Abort()
		return err
	}
	return f.Close()
}

// CreateNew creates a new file in dir named prefix, a random part and
// suffix (lagscope-watch-orders-20260102-150405-3f9a1c2e.json), with O_EXCL
// and mode 0600, and returns it open for writing: its name cannot be
// guessed ahead, and an existing file or symlink is never opened.
func CreateNew(dir, prefix, suffix string) (*os.File, error) {
	if strings.ContainsRune(prefix+suffix, os.PathSeparator) {
		return nil, errors.New("a file name cannot hold a path separator")
	}
	for range 10 {
		var r [4]byte
		if _, err := rand.Read(r[:]); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(filepath.Join(dir, prefix+hex.EncodeToString(r[:])+suffix), os.O_WRONLY|os.O_CREATE|os.O_EXCL, Mode)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("%s: cannot find a free file name", dir)
}

// CheckWritable says whether a file can be put at path, without touching
// path: a temporary file is created and removed in its directory. A
// directory at path is refused.
func CheckWritable(path string) error {
	if fi, err := os.Lstat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	f, err := Create(path)
	if err != nil {
		return err
	}
	f.Abort()
	return nil
}

// WriteNew writes data to a new file in dir named as CreateNew names it
// and returns its path. A failed write removes the file.
func WriteNew(dir, prefix, suffix string, data []byte) (string, error) {
	f, err := CreateNew(dir, prefix, suffix)
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if serr := f.Sync(); err == nil {
		err = serr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("write %s: %w", f.Name(), err)
	}
	return f.Name(), nil
}
