package lab

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/lab/cluster"
	"github.com/lagscope/lagscope/internal/testkit/labtest"
)

// TestIntegrationTheLabIsClosedToOtherLocalUsers brings up a pair with
// TLS (so both servers listen on 127.0.0.1 too) and a link, and checks, as
// the unprivileged account nobody, that no way into a lab server works:
// neither server's socket, the link's socket, nor either TCP port (no
// password), while the lab's own account and root (with the passfile) do
// get in and the subscriber replicates through the private link. Then the
// lab's account plants a symlink to a root-owned file where root writes
// the configuration, and one where server.log lives: root replaces the
// first without writing through it, and the second cannot be planted.
func TestIntegrationTheLabIsClosedToOtherLocalUsers(t *testing.T) {
	dir := labtest.Servers(t)
	if os.Getenv("LAGSCOPE_TEST_ONCE") != "1" {
		t.Skip("runs on one PostgreSQL version: set LAGSCOPE_TEST_ONCE=1")
	}
	if os.Geteuid() != 0 {
		t.Skip("runs as root: it connects as the accounts nobody and " + cluster.LabAccount)
	}
	psql, err := dir.Tool("psql")
	if err != nil {
		t.Skipf("no psql: %v", err)
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Skipf("no account nobody: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	p, err := NewPair(ctx, PairOptions{Bin: dir.Bin, PubCPUs: []int{0}, SubCPUs: []int{1}, Rows: 1000,
		Layout: Flat, TLS: true, Link: true, Binary: true, Streaming: "on", Log: labtest.Log{T: t}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	t.Logf("pair up in %s", time.Since(start).Round(100*time.Millisecond))
	owner := p.Lab.Owner
	if owner.Name != cluster.LabAccount {
		t.Fatalf("the servers run as %q, want %s", owner.Name, cluster.LabAccount)
	}
	for _, c := range []*cluster.Cluster{p.Pub, p.Sub} {
		checkServerAccount(t, c, owner)
	}

	// The subscriber reaches the publisher through the link, now the lab
	// account's own socket.
	if err := p.SetEnabled(ctx, true); err != nil {
		t.Fatal(err)
	}
	if err := Exec(ctx, p.Pub.ConnString(Database), "INSERT INTO hot VALUES (1000001, 1, 1, 'through the link')"); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "the row to reach the subscriber through the link", func() bool {
		n, err := Query[int64](ctx, p.Sub.ConnString(Database), "SELECT count(*) FROM hot WHERE id = 1000001")
		return err == nil && n == 1
	})
	if st := p.Proxy.Stats(); st.Downstream == 0 {
		t.Errorf("the link relayed nothing (%+v): the subscriber went around it", st)
	}
	// Root reaches TCP with the password from the passfile (TLS verify-full).
	if _, err := Query[int](ctx, p.ConnString(p.Pub), "SELECT 1"); err != nil {
		t.Errorf("root over TCP with the passfile: %v", err)
	}

	nobodyAcct := account{name: "nobody", uid: atoi(t, nobody.Uid), gid: atoi(t, nobody.Gid)}
	labAcct := account{name: owner.Name, uid: owner.UID, gid: owner.GID}
	sock := func(host string, port int) string {
		return fmt.Sprintf("host=%s port=%d user=%s dbname=%s connect_timeout=5", host, port, cluster.Superuser, Database)
	}
	tcp := func(host string, port int) string {
		return fmt.Sprintf("host=%s port=%d user=%s dbname=%s connect_timeout=5 sslmode=prefer", host, port, cluster.Superuser, Database)
	}
	linkDir := filepath.Dir(p.Proxy.Addr())
	const denied, noPassword = "Permission denied", "no password supplied"
	tries := []struct {
		name string
		as   account
		dsn  string
		why  string // the refusal psql must report ("" = gets in)
	}{
		{"the lab's account reaches the publisher's socket", labAcct, sock(p.Pub.SocketDir, p.Pub.Port), ""},
		{"nobody cannot reach the publisher's socket", nobodyAcct, sock(p.Pub.SocketDir, p.Pub.Port), denied},
		{"nobody cannot reach the subscriber's socket", nobodyAcct, sock(p.Sub.SocketDir, p.Sub.Port), denied},
		{"nobody cannot reach the link's socket", nobodyAcct, sock(linkDir, p.Pub.Port), denied},
		{"nobody cannot log in on the publisher's TCP port without the password", nobodyAcct, tcp("127.0.0.1", p.Pub.Port), noPassword},
		{"nobody cannot log in on the subscriber's TCP port without the password", nobodyAcct, tcp("127.0.0.1", p.Sub.Port), noPassword},
		{"nobody cannot log in as localhost either", nobodyAcct, tcp("localhost", p.Pub.Port), noPassword},
		{"nobody cannot replicate over TCP", nobodyAcct, tcp("127.0.0.1", p.Pub.Port) + " replication=database", noPassword},
	}
	for _, tt := range tries {
		out, err := tt.as.run(psql, "-X", "-w", "-At", "-c", "SELECT 'in'", tt.dsn)
		out = strings.TrimSpace(out)
		first, _, _ := strings.Cut(out, "\n")
		in := err == nil && out == "in"
		switch {
		case tt.why == "" && !in:
			t.Errorf("%s: did not get in (%v: %s)", tt.name, err, out)
		case tt.why != "" && (in || !strings.Contains(out, tt.why)):
			t.Errorf("%s: got in = %t (%v: %s), want a refusal with %q", tt.name, in, err, out, tt.why)
		default:
			t.Logf("%s: %s", tt.name, first)
		}
	}
	for _, c := range []*cluster.Cluster{p.Pub, p.Sub} {
		if out, err := nobodyAcct.run("/bin/cat", c.PassFile()); err == nil {
			t.Errorf("nobody read %s: %q", c.PassFile(), out)
		}
		pw, err := os.ReadFile(c.PassFile())
		if err != nil {
			t.Fatal(err)
		}
		fields := strings.Split(strings.TrimSpace(string(pw)), ":")
		if secret := fields[len(fields)-1]; len(secret) < 32 || strings.Contains(c.Log(), secret) {
			t.Errorf("%s's password is short (%d) or in its server log", c.Name, len(secret))
		}
	}

	// The lab's account plants a symlink to a root-owned file where root
	// writes the configuration; Reconfigure must replace it, not write
	// through it.
	precious := filepath.Join(t.TempDir(), "precious")
	if err := os.WriteFile(precious, []byte("root's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(p.Sub.DataDir, "postgresql.auto.conf")
	if out, err := labAcct.run("/bin/ln", "-sfn", precious, conf); err != nil {
		t.Fatalf("plant the symlink as %s: %v: %s", labAcct.name, err, out)
	}
	if fi, err := os.Lstat(conf); err != nil || fi.Mode().Type() != os.ModeSymlink {
		t.Fatalf("the planted %s is not a symlink (%v)", conf, err)
	}
	before := time.Now()
	if err := p.Sub.Reconfigure(ctx, map[string]string{"work_mem": "'7MB'"}); err != nil {
		t.Fatalf("reconfigure over the planted symlink: %v", err)
	}
	t.Logf("reconfigured (a restart) in %s", time.Since(before).Round(100*time.Millisecond))
	if b, _ := os.ReadFile(precious); string(b) != "root's\n" {
		t.Errorf("root wrote through the planted symlink: %s now holds %q", precious, b)
	}
	if fi, err := os.Lstat(conf); err != nil || !fi.Mode().IsRegular() || fi.Sys().(*syscall.Stat_t).Uid != owner.UID {
		t.Errorf("%s after Reconfigure: %v, %v; want a regular file of %s", conf, fi.Mode(), err, owner.Name)
	}
	if wm, err := Query[string](ctx, p.Sub.ConnString(Database), "SHOW work_mem"); err != nil || wm != "7MB" {
		t.Errorf("work_mem = %q, %v; want 7MB (the configuration written in place of the symlink)", wm, err)
	}
	// server.log is in the cluster's own directory, which the account cannot write.
	if out, err := labAcct.run("/bin/ln", "-sfn", precious, filepath.Join(p.Sub.Dir, "server.log")); err == nil {
		t.Errorf("%s replaced server.log with a symlink: %s", labAcct.name, out)
	}
	if fi, err := os.Lstat(filepath.Join(p.Sub.Dir, "server.log")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("server.log is not a regular file (%v)", err)
	}
	t.Logf("pair, %d connection attempts and the plants took %s", len(tries), time.Since(start).Round(100*time.Millisecond))
}

// account is a local account a test runs a program as, with no
// supplementary groups.
type account struct {
	name     string
	uid, gid uint32
}

// run runs a program as a and returns its combined output.
func (a account) run(prog string, args ...string) (string, error) {
	cmd := exec.Command(prog, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: a.uid, Gid: a.gid, Groups: []uint32{}}}
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent", "LC_ALL=C"}
	cmd.Dir = "/"
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// checkServerAccount checks that c's postmaster runs as owner with no
// supplementary groups.
func checkServerAccount(t *testing.T, c *cluster.Cluster, owner cluster.Owner) {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.PID()))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, ":")
		f := strings.Fields(v)
		switch k {
		case "Uid":
			if len(f) == 0 || f[0] != strconv.Itoa(int(owner.UID)) {
				t.Errorf("%s server runs as uid %v, want %d (%s)", c.Name, f, owner.UID, owner.Name)
			}
		case "Groups":
			if len(f) != 0 {
				t.Errorf("%s server has supplementary groups %v, want none", c.Name, f)
			}
		}
	}
}

func atoi(t *testing.T, s string) uint32 {
	t.Helper()
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		t.Fatal(err)
	}
	return uint32(n)
}

// waitFor polls cond every 100 ms for 30 s.
func waitFor(ctx context.Context, t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) || ctx.Err() != nil {
			t.Fatalf("waited 30 s for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
