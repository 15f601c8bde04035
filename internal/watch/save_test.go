package watch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/sample"
)

// A saved window is the owner's alone (0600) and its name has a random
// part: two saves in one second never meet, and nobody can plant a file
// under the name ahead of the save.
func TestSaveIsPrivateAndUnguessable(t *testing.T) {
	dir := t.TempDir()
	a, err := save(dir, "orders", &sample.Recording{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := save(dir, "orders", &sample.Recording{})
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Fatalf("two saves got one name %s", a)
	}
	for _, p := range []string{a, b} {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", p, fi.Mode())
		}
		if name := filepath.Base(p); !strings.HasPrefix(name, "lagscope-watch-orders-") || !strings.HasSuffix(name, ".json") {
			t.Errorf("name %s does not say what it holds", name)
		}
	}
}
