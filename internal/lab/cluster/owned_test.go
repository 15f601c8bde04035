package cluster

import (
	"os"
	"path/filepath"
	"testing"
)

// writeOwned replaces whatever the server's account planted at the name
// (a symlink, a hard link) with a fresh file, leaving the link's target as
// it was, and refuses a directory that is itself a symlink.
func TestWriteOwnedNeverWritesThroughAPlantedLink(t *testing.T) {
	plants := []struct {
		name  string
		plant func(target, path string) error
	}{
		{"a symlink to another file is replaced, its target untouched", os.Symlink},
		{"a hard link to another file is replaced, its target untouched", os.Link},
		{"a symlink to a missing file is replaced, nothing created at its target", func(target, path string) error {
			return os.Symlink(target+".missing", path)
		}},
	}
	for _, tt := range plants {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			target := filepath.Join(base, "precious")
			if err := os.WriteFile(target, []byte("precious\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(base, "data")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "postgresql.auto.conf")
			if err := tt.plant(target, path); err != nil {
				t.Fatal(err)
			}
			if err := writeOwned(Owner{}, dir, "postgresql.auto.conf", []byte("port = 5432\n")); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(target); string(b) != "precious\n" {
				t.Errorf("the link's target now holds %q", b)
			}
			if _, err := os.Lstat(target + ".missing"); !os.IsNotExist(err) {
				t.Errorf("a file was created at the dangling link's target (%v)", err)
			}
			fi, err := os.Lstat(path)
			if err != nil {
				t.Fatal(err)
			}
			if !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
				t.Errorf("%s has mode %v, want a regular file of mode 0600", path, fi.Mode())
			}
			if b, _ := os.ReadFile(path); string(b) != "port = 5432\n" {
				t.Errorf("%s holds %q", path, b)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("the directory holds %d entries, want 1 (no temporary file left)", len(entries))
			}
		})
	}
	t.Run("a directory that is a symlink is refused", func(t *testing.T) {
		base := t.TempDir()
		elsewhere := filepath.Join(base, "elsewhere")
		os.Mkdir(elsewhere, 0o700)
		link := filepath.Join(base, "data")
		os.Symlink(elsewhere, link)
		if err := writeOwned(Owner{}, link, "standby.signal", nil); err == nil {
			t.Error("writeOwned wrote through a symlinked directory")
		}
		if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
			t.Errorf("the symlinked directory's target holds %d entries, want none", len(entries))
		}
	})
}
