package cluster

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// testBin finds PostgreSQL server binaries for integration tests, or skips.
func testBin(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("LAGSCOPE_PG_BIN"); d != "" {
		return d
	}
	m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(m) == 0 {
		t.Skip("no PostgreSQL server binaries: run scripts/install-deps.sh or set LAGSCOPE_PG_BIN")
	}
	sort.Strings(m)
	return filepath.Dir(m[len(m)-1])
}

func TestAClusterStartsServesAndIsRemovedOnClose(t *testing.T) {
	bin := testBin(t)
	owner, err := DefaultOwner()
	if err != nil {
		t.Fatal(err)
	}
	base := testBase(t)
	lab, err := NewLab(base, "test", owner)
	if err != nil {
		t.Fatal(err)
	}
	defer lab.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := lab.Create(ctx, Options{Name: "pub", Bin: bin, CPUs: []int{0}})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, c.ConnString("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	var level string
	if err := conn.QueryRow(ctx, "SHOW wal_level").Scan(&level); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	if level != "logical" {
		t.Errorf("wal_level = %q, want logical", level)
	}
	// No TCP without Options.TCP: the socket is the only way in.
	if tc, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", c.Port), time.Second); err == nil {
		tc.Close()
		t.Errorf("the server accepts TCP on 127.0.0.1:%d, want the socket only", c.Port)
	}
	if fi, err := os.Stat(c.SocketDir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("socket directory %s: %v, %v; want mode 0700", c.SocketDir, fi.Mode(), err)
	}
	los, err := FindLeftovers(base)
	if err != nil || len(los) != 1 || len(los[0].Servers) != 1 || los[0].Servers[0] != c.PID() {
		t.Errorf("FindLeftovers = %+v, %v; want the one lab with server %d", los, err, c.PID())
	}
	pid := c.PID()
	if err := lab.Close(); err != nil {
		t.Fatal(err)
	}
	if processAlive(pid) {
		t.Errorf("server %d still running after Close", pid)
	}
	if _, err := os.Stat(lab.Dir); !os.IsNotExist(err) {
		t.Errorf("lab directory %s still exists", lab.Dir)
	}
}

// testBase makes a lab base directory the server account can traverse
// (t.TempDir's parent is private to root).
func testBase(t *testing.T) string {
	t.Helper()
	base, err := os.MkdirTemp("", "lagscope-test-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(base, 0o755)
	t.Cleanup(func() { os.RemoveAll(base) })
	return base
}

func TestClustersUnderATemplateDirectoryAreCopiesOfOneInitdbAndServe(t *testing.T) {
	bin := testBin(t)
	owner, err := DefaultOwner()
	if err != nil {
		t.Fatal(err)
	}
	base := testBase(t)
	root := filepath.Join(base, "templates")
	t.Setenv(TemplatesEnv, root)
	lab, err := NewLab(base, "test", owner)
	if err != nil {
		t.Fatal(err)
	}
	defer lab.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	first, err := lab.Create(ctx, Options{Name: "first", Bin: bin})
	if err != nil {
		t.Fatal(err)
	}
	made, _ := filepath.Glob(filepath.Join(root, "*"))
	if len(made) != 1 {
		t.Fatalf("template directory holds %v, want one template", made)
	}
	// A file only the template has: the next cluster is a copy, not a new initdb.
	mark := filepath.Join(made[0], "data", "lagscope-test-mark")
	if err := os.WriteFile(mark, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := owner.Give(mark); err != nil {
		t.Fatal(err)
	}
	second, err := lab.Create(ctx, Options{Name: "second", Bin: bin})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(second.DataDir, "lagscope-test-mark")); err != nil {
		t.Errorf("the second cluster is not a copy of the template: %v", err)
	}
	if again, _ := filepath.Glob(filepath.Join(root, "*")); len(again) != 1 {
		t.Errorf("template directory holds %v after the second cluster, want the one template", again)
	}
	for _, c := range []*Cluster{first, second} {
		fi, err := os.Stat(filepath.Join(c.DataDir, "PG_VERSION"))
		if err != nil {
			t.Fatal(err)
		}
		if st := fi.Sys().(*syscall.Stat_t); !owner.IsZero() && (st.Uid != owner.UID || st.Gid != owner.GID) {
			t.Errorf("%s's data belongs to %d:%d, want the server account %d:%d", c.Name, st.Uid, st.Gid, owner.UID, owner.GID)
		}
		if err := c.Start(ctx); err != nil {
			t.Fatal(err)
		}
		conn, err := pgx.Connect(ctx, c.ConnString("postgres"))
		if err != nil {
			t.Fatal(err)
		}
		var one int
		err = conn.QueryRow(ctx, "SELECT 1").Scan(&one)
		conn.Close(ctx)
		if err != nil || one != 1 {
			t.Errorf("%s: SELECT 1 = %d, %v", c.Name, one, err)
		}
	}
}
