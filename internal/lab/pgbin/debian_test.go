package pgbin

import (
	"os"
	"testing"
)

// debian15 is where Debian 12's postgresql package puts the server.
const debian15 = "/usr/lib/postgresql/15/bin"

// TestFindDebian15 finds the real Debian install. It runs `postgres --version`
// and nothing else: no server starts, nothing is downloaded.
func TestFindDebian15(t *testing.T) {
	if _, err := os.Stat(debian15 + "/postgres"); err != nil {
		t.Skipf("Debian's PostgreSQL 15 is not installed (%v); run scripts/install-deps.sh to test against it", err)
	}
	// No environment (no $LAGSCOPE_PG_BIN, no cache) and no script: only what is installed.
	o := FindOptions{PGVersion: 15, Env: envMap(nil), locate: noScript}
	d, err := Find(o)
	if err != nil {
		t.Fatalf("Find(--pg-version 15): %v", err)
	}
	if d.Bin != debian15 || d.Version.Major != 15 || d.Version.Minor == 0 {
		t.Errorf("Find(--pg-version 15) = %+v, want %s with a 15.x version", d, debian15)
	}

	byFlag, err := Find(FindOptions{PGBin: debian15})
	if err != nil || byFlag != d {
		t.Errorf("Find(--pg-bin %s) = %+v, %v; want %+v", debian15, byFlag, err, d)
	}

	for _, tool := range []string{"psql", "pgbench"} {
		p, err := d.Tool(tool)
		if err != nil {
			t.Errorf("Tool(%q): %v", tool, err)
		} else if p != debian15+"/"+tool {
			t.Errorf("Tool(%q) = %q, want it from %s", tool, p, debian15)
		}
	}
}
