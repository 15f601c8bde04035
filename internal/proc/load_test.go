package proc

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// loadFixture copies the fixture's stat files under a new root and gives
// each process a status file with the allowed CPUs of allowed (pid → list).
func loadFixture(t *testing.T, allowed map[int]string) FS {
	t.Helper()
	root := t.TempDir()
	copyFile := func(from, to string) {
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(filepath.Join(fixtureRoot, "stat"), filepath.Join(root, "stat"))
	for pid, list := range allowed {
		dir := filepath.Join(root, itoa(pid))
		copyFile(filepath.Join(fixtureRoot, itoa(pid), "stat"), filepath.Join(dir, "stat"))
		status := "Name:\tpostgres\nCpus_allowed:\t3\nCpus_allowed_list:\t" + list + "\nvoluntary_ctxt_switches:\t1\n"
		if err := os.WriteFile(filepath.Join(dir, "status"), []byte(status), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fs, err := NewFS(root)
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestAllowed(t *testing.T) {
	fs := loadFixture(t, map[int]string{2483: "0-1", 6861: "1"})
	got, err := fs.Allowed(6861)
	if err != nil || len(got) != 1 || got[0] != 1 {
		t.Fatalf("Allowed(6861) = %v, %v; want [1]", got, err)
	}
	if _, err := fs.Allowed(99999); err == nil {
		t.Fatal("Allowed of a missing process: no error")
	}
}

func TestLoadKeepsTheProcessesOnTheCPUs(t *testing.T) {
	fs := loadFixture(t, map[int]string{2483: "0", 6861: "1"})
	got, err := fs.Load([]int{1})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].PID != 6861 {
		t.Fatalf("Load([1]) = %+v, want process 6861 only", got)
	}
	p := got[0]
	if p.CPU != 450*time.Millisecond || !p.Start.Equal(fixtureBoot.Add(440010*time.Millisecond)) || p.Comm == "" {
		t.Errorf("Load([1])[0] = %+v, want 450ms of CPU, the fixture's start and its command", p)
	}
	all, err := fs.Load(nil)
	if err != nil || len(all) != 2 || all[0].PID != 2483 {
		t.Fatalf("Load(nil) = %+v, %v; want both processes, by pid", all, err)
	}
}

func TestIntersect(t *testing.T) {
	for _, c := range []struct {
		a, b []int
		want bool
	}{{[]int{0, 1}, []int{1}, true}, {[]int{0}, []int{1, 2}, false}, {nil, []int{0}, false}} {
		if got := Intersect(c.a, c.b); got != c.want {
			t.Errorf("Intersect(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
