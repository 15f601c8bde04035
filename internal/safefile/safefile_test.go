package safefile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mode is the permission bits of the file at path (not following a link).
func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()
}

func TestWriteFileIsTheOwnersAlone(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, existing string }{
		{"a new file is created 0600", ""},
		{"a file that was 0644 is replaced by one that is 0600", "old"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, "samples.json")
			if c.existing != "" {
				if err := os.WriteFile(path, []byte(c.existing), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := WriteFile(path, []byte("new")); err != nil {
				t.Fatal(err)
			}
			if m := mode(t, path); m != Mode {
				t.Errorf("mode %v, want %v", m, Mode)
			}
			if b, _ := os.ReadFile(path); string(b) != "new" {
				t.Errorf("content %q, want %q", b, "new")
			}
		})
	}
	if left := leftovers(t, dir); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// leftovers are the temporary files in dir.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if strings.HasSuffix(e.Name(), ".tmp") {
			out = append(out, e.Name())
		}
	}
	return out
}

// A symlink planted at the target is replaced by the file; the file it
// pointed to is neither written nor truncated.
func TestASymlinkAtTheTargetIsReplacedNotFollowed(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "out.json")
	if err := os.Symlink(victim, path); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("report")); err != nil {
		t.Fatal(err)
	}
	if m := mode(t, path); m&os.ModeSymlink != 0 || m != Mode {
		t.Errorf("target mode %v: want a regular 0600 file in place of the symlink", m)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("the symlink's target was written: %q", b)
	}
	if err := CheckWritable(path); err != nil {
		t.Errorf("CheckWritable: %v", err)
	}
}

// Until Close renames it into place, the old file stays whole: a crash
// (here: the write abandoned before Close) never leaves half a file under
// the target's name, and an aborted write leaves the old file as it was.
func TestTheOldFileStaysUntilTheRename(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "snapshots.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("half of the new")); err != nil {
		t.Fatal(err)
	}
	// The process dies here: the target still holds the old file.
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("before the rename the target holds %q, want the old file", b)
	}
	if left := leftovers(t, dir); len(left) != 1 || mode(t, filepath.Join(dir, left[0])) != Mode {
		t.Fatalf("want one 0600 temporary file beside the target, got %v", left)
	}
	f.Abort()
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("after Abort the target holds %q, want the old file", b)
	}
	if left := leftovers(t, dir); len(left) != 0 {
		t.Errorf("Abort left %v", left)
	}
	failing := errors.New("render failed")
	if err := WriteTo(path, func(w io.Writer) error { w.Write([]byte("partial")); return failing }); !errors.Is(err, failing) {
		t.Errorf("WriteTo returned %v, want the writer's error", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("after a failed WriteTo the target holds %q, want the old file", b)
	}
}

func TestTargetsThatCannotBeWritten(t *testing.T) {
	dir := t.TempDir()
	cases := []struct{ name, path string }{
		{"a directory is refused", dir},
		{"a missing directory is refused", filepath.Join(dir, "nope", "x.json")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := WriteFile(c.path, []byte("x")); err == nil {
				t.Errorf("WriteFile(%s) succeeded", c.path)
			}
			if err := CheckWritable(c.path); err == nil {
				t.Errorf("CheckWritable(%s) succeeded", c.path)
			}
		})
	}
}

// WriteNew's names are new each time (a random part), created 0600 with
// O_EXCL: two writes in the same second never meet.
func TestWriteNewNamesCannotBeGuessed(t *testing.T) {
	dir := t.TempDir()
	a, err := WriteNew(dir, "lagscope-watch-p-20260102-150405-", ".json", []byte("a"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := WriteNew(dir, "lagscope-watch-p-20260102-150405-", ".json", []byte("b"))
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Fatalf("two writes got one name %s", a)
	}
	for _, p := range []string{a, b} {
		if m := mode(t, p); m != Mode {
			t.Errorf("%s: mode %v, want %v", p, m, Mode)
		}
	}
	if _, err := WriteNew(dir, "a/b", ".json", nil); err == nil {
		t.Errorf("a prefix with a separator was accepted")
	}
}
