package pgbin

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// fakeBin makes dir hold small shell scripts named tools that print
// "<tool> (PostgreSQL) <version>" the way PostgreSQL's programs answer --version.
// With no tools it makes a full server directory.
func fakeBin(t *testing.T, dir, version string, tools ...string) string {
	t.Helper()
	if len(tools) == 0 {
		tools = serverTools
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools {
		script := fmt.Sprintf("#!/bin/sh\necho '%s (PostgreSQL) %s'\n", tool, version)
		if err := os.WriteFile(filepath.Join(dir, tool), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// writeScript writes an executable shell script.
func writeScript(t *testing.T, path, body string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// envMap is an Env seam backed by a map.
func envMap(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// noPath is a LookPath seam for a PATH holding nothing.
func noPath(name string) (string, error) {
	return "", fmt.Errorf("exec: %q: executable file not found in $PATH", name)
}
