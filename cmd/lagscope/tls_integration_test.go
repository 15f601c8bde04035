package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/lab/certs"
	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/testkit/labtest"
)

// A server with a certificate from a throwaway CA: pg.Connect (and so
// diagnose and check) reaches it with sslmode=verify-full, and refuses it
// with a one-line reason for a wrong host name, an unknown CA and an
// expired certificate.
func TestIntegrationTLSVerifyFull(t *testing.T) {
	labtest.Once(t) // the TLS handshake and pgx's verification: the same on every server version
	bin := buildLagscope(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := labtest.Server(ctx, t)
	dir := t.TempDir()
	ca := newCA(t, dir, "ca.crt")
	newCA(t, dir, "other.crt") // a CA that signed nothing here
	now := time.Now()
	serve := func(hosts []string, from, to time.Time) {
		t.Helper()
		s, err := ca.Issue(hosts, from, to)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SetTLS(s); err != nil {
			t.Fatal(err)
		}
		if err := c.Restart(ctx); err != nil {
			t.Fatalf("restart with TLS: %v\n%s", err, c.Log())
		}
	}
	dsn := func(host, root string) string {
		return c.TCPConnString("postgres", host, "sslmode=verify-full sslrootcert="+filepath.Join(dir, root))
	}
	serve([]string{"localhost", "127.0.0.1"}, now.Add(-time.Minute), now.Add(time.Hour))
	for _, host := range []string{"localhost", "127.0.0.1"} {
		conn, err := pg.Connect(ctx, dsn(host, "ca.crt"), "publisher")
		if err != nil {
			t.Fatalf("verify-full to %s: %v", host, err)
		}
		var ssl bool
		if err := conn.QueryRow(ctx, "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").Scan(&ssl); err != nil || !ssl {
			t.Errorf("%s: pg_stat_ssl.ssl = %v (%v), want true", host, ssl, err)
		}
		conn.Close()
	}
	// check and diagnose over TLS: check audits the server, diagnose gets
	// as far as finding no slot (it connected and asked).
	if o := lagscope(t, bin, "check", "--publisher", dsn("localhost", "ca.crt")); o.exit > 1 {
		t.Errorf("check over verify-full: exit %d: %s", o.exit, o.stderr)
	}
	if o := lagscope(t, bin, "diagnose", "--publisher", dsn("localhost", "ca.crt"), "--duration", "2s"); !strings.Contains(o.stderr, "no logical replication slot") {
		t.Errorf("diagnose over verify-full: exit %d: %s", o.exit, o.stderr)
	}

	refused := func(name, d, want string) {
		t.Helper()
		_, err := pg.Connect(ctx, d, "publisher")
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line saying %q", name, err, want)
		}
		if o := lagscope(t, bin, "diagnose", "--publisher", d, "--duration", "2s"); o.exit != 2 || !strings.Contains(o.stderr, want) ||
			len(strings.Split(strings.TrimSpace(o.stderr), "\n")) != 1 {
			t.Errorf("%s: diagnose exit %d, stderr %q: want exit 2 and one line saying %q", name, o.exit, o.stderr, want)
		}
	}
	refused("another CA", dsn("localhost", "other.crt"), "a CA that sslrootcert does not hold")
	serve([]string{"db.example"}, now.Add(-time.Minute), now.Add(time.Hour))
	refused("another host name", dsn("localhost", "ca.crt"), `not for host "localhost" but for db.example`)
	serve([]string{"localhost"}, now.Add(-2*time.Hour), now.Add(-time.Hour))
	refused("an expired certificate", dsn("localhost", "ca.crt"), "has expired")
}

// newCA makes a CA and writes its certificate to dir/name.
func newCA(t *testing.T, dir, name string) *certs.CA {
	t.Helper()
	ca, err := certs.NewCA("lagscope test "+name, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), ca.PEM, 0o644); err != nil {
		t.Fatal(err)
	}
	return ca
}

// lagscope runs the binary and returns its exit code and output.
func lagscope(t *testing.T, bin string, args ...string) outcome {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	o := outcome{took: time.Since(start), stdout: out.String(), stderr: errOut.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		o.exit = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o
}
