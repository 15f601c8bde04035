package pgbin

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// Tool returns the path of a PostgreSQL client program such as "psql" or
// "pgbench". It looks in d.Bin first, then in the newest
// /usr/lib/postgresql/<major>/bin that has it, then on PATH: the npm builds
// get-postgres.sh installs hold no client programs, and Debian's work against
// newer servers.
func (d Dir) Tool(name string) (string, error) {
	return findTool(name, d.Bin, DefaultDistroRoot, exec.LookPath)
}

// findTool is Tool with its search places as parameters.
func findTool(name, bin, distroRoot string, lookPath func(string) (string, error)) (string, error) {
	if name == "" || strings.ContainsRune(name, filepath.Separator) {
		return "", fmt.Errorf("%q is not a program name; pass a bare name such as \"pgbench\"", name)
	}
	if bin != "" {
		if p := filepath.Join(bin, name); isExecutable(p) {
			return p, nil
		}
	}
	for _, dir := range distroBins(distroRoot) {
		if p := filepath.Join(dir, name); isExecutable(p) {
			return p, nil
		}
	}
	if p, err := lookPath(name); err == nil {
		return p, nil
	}
	where := distroRoot + "/*/bin or PATH"
	if bin != "" {
		where = bin + ", " + where
	}
	return "", fmt.Errorf("%s not found in %s: install PostgreSQL (apt-get install postgresql, or run scripts/install-deps.sh) or pass --pg-bin DIR of a full installation", name, where)
}
