package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/lagscope/lagscope/internal/lab/pgbin"
)

// binDir holds the lagscope binary the integration tests run, built at most
// once per test process (removed by TestMain when the tests end).
var binDir string

// TestMain makes binDir and removes it after the tests.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "lagscope-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// build builds the binary into binDir, once.
var build = sync.OnceValues(func() (string, error) {
	bin := filepath.Join(binDir, "lagscope")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

// buildLagscope returns the binary for an integration test (built by the
// first test that asks), skipping like the other integration tests.
func buildLagscope(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: runs without -short")
	}
	if _, err := pgbin.Find(pgbin.FindOptions{}); err != nil {
		t.Skipf("no PostgreSQL server binaries (%v): run scripts/install-deps.sh", err)
	}
	bin, err := build()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}
