package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/testkit/labpair"
	"github.com/lagscope/lagscope/internal/testkit/labtest"
)

// secret is the password of the role the secrets test connects as; it
// must appear in no output, log, saved file or metric.
const (
	secretRole = "lagscope_sec"
	secret     = `Zq9-s3 cr'e\t-Xk7` // a space, a quote, a backslash: escaped, quoted and encoded forms differ
)

// secretParts are the pieces of secret whose presence in any output is a
// leak (a half-masked password shows one of them).
var secretParts = []string{"Zq9", "Xk7", "s3 cr", "e\\t"}

// kvQuoted and kvEscaped are secret as a libpq keyword/value value, quoted
// and bare with backslash escapes.
var (
	kvQuoted  = "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(secret) + "'"
	kvEscaped = strings.NewReplacer(`\`, `\\`, `'`, `\'`, " ", `\ `).Replace(secret)
)

// TestIntegrationNoCommandShowsThePassword runs every command and format
// the suite exercises against a pair whose servers ask for a password
// over TCP, with the password in a keyword/value string, in a URI and in
// PGPASSWORD, and searches everything they print and write for it. Each
// run must have worked (a verdict, a report, metrics): a run that failed to
// connect proves nothing.
func TestIntegrationNoCommandShowsThePassword(t *testing.T) {
	labtest.Once(t)
	bin := buildLagscope(t)
	// The lab's servers listen on 127.0.0.1 with scram-sha-256 (TCP); the
	// lab's own sessions keep the socket.
	p := labpair.Up(t, "caught-up", func(o *lab.PairOptions) { o.TCP = true })
	for _, dsn := range []string{p.Pub.ConnString(lab.Database), p.Sub.ConnString(lab.Database)} {
		exec1(t, dsn, fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s' IN ROLE pg_monitor", secretRole, strings.ReplaceAll(secret, "'", "''")))
	}
	kw := func(port int) string {
		return fmt.Sprintf("host=127.0.0.1 port=%d user=%s password=%s dbname=%s", port, secretRole, kvQuoted, lab.Database)
	}
	kwEscaped := func(port int) string {
		return fmt.Sprintf("host=127.0.0.1 port=%d user=%s password=%s dbname=%s", port, secretRole, kvEscaped, lab.Database)
	}
	uri := func(port int) string {
		return fmt.Sprintf("postgresql://%s:%s@127.0.0.1:%d/%s", secretRole, url.PathEscape(secret), port, lab.Database)
	}
	uriQuery := func(port int) string {
		return fmt.Sprintf("postgresql://%s@127.0.0.1:%d/%s?password=%s", secretRole, port, lab.Database, strings.ReplaceAll(url.QueryEscape(secret), "+", "%20")) // libpq reads no + as a space
	}
	bare := func(port int) string {
		return fmt.Sprintf("host=127.0.0.1 port=%d user=%s dbname=%s", port, secretRole, lab.Database)
	}
	pub, sub := p.Pub.Port, p.Sub.Port
	dir := t.TempDir()
	file := func(name string) string { return filepath.Join(dir, name) }
	env := []string{"PGPASSWORD=" + secret}
	runs := []struct {
		name string
		env  []string
		args []string
		want string // in stdout: the run worked
	}{
		{"diagnose text", nil, []string{"diagnose", "--publisher", kw(pub), "--subscriber", kw(sub), "--duration", "3s", "--save-samples", file("samples.json")}, "VERDICT"},
		{"diagnose json", nil, []string{"diagnose", "--publisher", uri(pub), "--subscriber", uri(sub), "--duration", "3s", "--json"}, `"verdict"`},
		{"diagnose markdown", env, []string{"diagnose", "--publisher", bare(pub), "--subscriber", bare(sub), "--duration", "3s", "--format", "markdown"}, "lagscope diagnosis"},
		{"diagnose html", nil, []string{"diagnose", "--publisher", kw(pub), "--subscriber", uri(sub), "--duration", "3s", "--format", "html"}, "<html"},
		{"diagnose from samples", nil, []string{"diagnose", "--from-samples", file("samples.json")}, "VERDICT"},
		{"check text", nil, []string{"check", "--publisher", kw(pub), "--subscriber", kw(sub), "--save-snapshots", file("snapshots.json")}, "checks ok"},
		{"check json", env, []string{"check", "--publisher", bare(pub), "--subscriber", bare(sub), "--json"}, "{"},
		{"check from snapshots", nil, []string{"check", "--from-snapshots", file("snapshots.json")}, "checks ok"},
		{"diagnose escaped, check URI query", nil, []string{"diagnose", "--publisher", kwEscaped(pub), "--subscriber", uriQuery(sub), "--duration", "3s"}, "VERDICT"},
		{"check escaped", nil, []string{"check", "--publisher", kwEscaped(pub), "--subscriber", uriQuery(sub)}, "checks ok"},
		{"parse error after an escaped password", nil, []string{"diagnose", "--publisher", kwEscaped(pub) + " port=x"}, ""},
		{"parse error after a quoted password", nil, []string{"check", "--publisher", kw(pub) + " sslmode=bogus"}, ""},
		{"parse error: an unterminated quote", nil, []string{"diagnose", "--publisher", "port=x password=" + kvQuoted[:len(kvQuoted)-1]}, ""},
		{"parse error: a URI with the raw password", nil, []string{"diagnose", "--publisher", "postgres://u:" + secret + "@127.0.0.1:x/db"}, ""},
		{"parse error: a URI-encoded password", nil, []string{"watch", "--plain", "--publisher", strings.Replace(uri(pub), "127.0.0.1", "127.0.0.1:x", 1)}, ""},
		{"a wrong password after the right one's form", nil, []string{"diagnose", "--publisher", strings.Replace(kw(pub), kvQuoted, "'wrong "+kvQuoted[1:], 1), "--duration", "2s"}, ""},
		{"diagnose to a missing database", nil, []string{"diagnose", "--publisher", strings.Replace(kw(pub), "dbname="+lab.Database, "dbname=nope", 1), "--duration", "2s"}, ""},
		{"diagnose with a URI to a missing database", nil, []string{"diagnose", "--publisher", strings.Replace(uri(pub), "/"+lab.Database, "/nope", 1), "--duration", "2s"}, ""},
	}
	// The runs are independent but for the two that read what an earlier
	// one saved (--from-samples, --from-snapshots): the others run at once,
	// those two after them. Nothing here is timed: each run is judged by
	// what it printed.
	outs := make([][]string, len(runs))
	var wg sync.WaitGroup
	for _, reads := range []bool{false, true} {
		for i, r := range runs {
			if slices.ContainsFunc(r.args, func(a string) bool { return strings.HasPrefix(a, "--from-") }) != reads {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				outs[i] = runShowingNoPassword(t, bin, r.name, r.env, r.args, r.want)
			}()
		}
		wg.Wait()
	}
	var seen []string
	for _, o := range outs {
		seen = append(seen, o...)
	}
	seen = append(seen, connectionFailures(t, bin, pub, kw(pub), bare(pub), p.Pub.SocketDir)...)
	seen = append(seen, exporterOutput(t, bin, bare(pub), bare(sub), env)...)
	seen = append(seen, watchOutput(t, bin, kw(pub), kw(sub))...)
	for _, f := range []string{"samples.json", "snapshots.json"} {
		b, err := os.ReadFile(file(f))
		if err != nil {
			t.Errorf("%s was not written: %v", f, err)
		}
		seen = append(seen, f+"\n"+string(b))
	}
	for _, s := range seen {
		for _, part := range secretParts {
			if strings.Contains(s, part) {
				name, _, _ := strings.Cut(s, "\n")
				t.Errorf("the password (%q) shows in %s:\n%s", part, name, head(s))
			}
		}
	}
	t.Logf("searched %d outputs and files for the password", len(seen))
}

// runShowingNoPassword runs lagscope with args and env, fails the test
// when it did not work (want in its stdout) or worked where want is "" (an
// error is wanted), and returns its stdout and stderr, each headed by name.
func runShowingNoPassword(t *testing.T, bin, name string, env, args []string, want string) []string {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	// Exit 1 is a finding (a verdict, a check that failed): the run worked.
	worked := err == nil || cmd.ProcessState.ExitCode() == 1
	if want != "" && (!worked || !strings.Contains(out.String(), want)) {
		t.Errorf("%s: %v, stdout lacks %q:\n%s\nstderr:\n%s", name, err, want, head(out.String()), errOut.String())
	}
	if want == "" && worked {
		t.Errorf("%s: worked, want an error", name)
	}
	return []string{name + " stdout\n" + out.String(), name + " stderr\n" + errOut.String()}
}

// exporterOutput runs the exporter with the password in PGPASSWORD for a
// few steps and returns its log and a scrape of its metrics.
func exporterOutput(t *testing.T, bin, pub, sub string, env []string) []string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "exporter", "--publisher", pub, "--subscriber", sub, "--listen", addr,
		"--window", "4s", "--step", "2s", "--name", "secrets")
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var metrics string
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) && !strings.Contains(metrics, "lagscope_verdict{") {
		time.Sleep(time.Second)
		if r, err := http.Get("http://" + addr + "/metrics"); err == nil {
			b, _ := io.ReadAll(r.Body)
			r.Body.Close()
			metrics = string(b)
		}
	}
	if !strings.Contains(metrics, "lagscope_verdict{") {
		t.Errorf("the exporter served no verdict within 30 s; log:\n%s", out.String())
	}
	cmd.Process.Signal(os.Interrupt)
	waitExit(cmd)
	return []string{"exporter log\n" + out.String(), "exporter metrics\n" + metrics}
}

// watchOutput runs 'watch --plain' for two steps and returns what it printed.
func watchOutput(t *testing.T, bin, pub, sub string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "watch", "--plain", "--publisher", pub, "--subscriber", sub, "--window", "4s", "--step", "2s")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Second)
	cmd.Process.Signal(os.Interrupt)
	waitExit(cmd)
	if !strings.Contains(out.String(), "lab_sub") {
		t.Errorf("watch printed no path in 10 s:\n%s", out.String())
	}
	return []string{"watch output\n" + out.String()}
}

// waitExit waits up to 10 s for cmd to exit after a signal, then kills it.
func waitExit(cmd *exec.Cmd) {
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}

func head(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "..."
	}
	return s
}

// connectionFailures runs diagnose and check against real closed ports,
// an unknown host, a wrong or missing password, a role and a database that
// do not exist, and a server that does not answer: each must fail with
// exit code 2 and one line that names the cause. It returns their outputs
// for the password search.
// sock is the server's socket directory: PostgreSQL names an unknown role
// only to a client it trusts (the lab's socket); over TCP it asks for the
// password first.
func connectionFailures(t *testing.T, bin string, port int, good, bare, sock string) []string {
	t.Helper()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := closed.Addr().(*net.TCPAddr).Port
	closed.Close()
	// A listener nobody accepts from: the kernel completes the handshake,
	// then nothing answers.
	mute, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer mute.Close()
	mutePort := mute.Addr().(*net.TCPAddr).Port
	wrong := strings.Replace(good, kvQuoted, "'not-it'", 1)
	cases := []struct {
		name string
		env  []string
		dsn  string
		want []string // the line holds one of these
	}{
		{"closed port", nil, fmt.Sprintf("host=127.0.0.1 port=%d dbname=x", closedPort), []string{fmt.Sprintf("connection refused at 127.0.0.1:%d", closedPort)}},
		{"unknown host", nil, "host=nosuch.invalid port=5432 dbname=x", []string{"host nosuch.invalid is unknown", "cannot resolve host nosuch.invalid"}},
		{"no server socket", nil, "host=/nonexistent-lagscope port=5432", []string{"no server socket /nonexistent-lagscope/.s.PGSQL.5432"}},
		{"wrong password in the string", nil, wrong, []string{`password authentication failed for user "` + secretRole + `": the password for role ` + secretRole + ` came from the connection string`}},
		{"wrong password in PGPASSWORD", []string{"PGPASSWORD=not-it"}, bare, []string{"came from PGPASSWORD"}},
		{"no password", []string{"PGPASSFILE=/nonexistent"}, bare, []string{"no password was given for role " + secretRole}},
		{"unknown role", nil, fmt.Sprintf("host=%s port=%d user=nobody_here dbname=%s", sock, port, lab.Database), []string{`role "nobody_here" does not exist: connect as a role that exists`}},
		{"missing database", nil, strings.Replace(good, "dbname="+lab.Database, "dbname=nope", 1), []string{`database "nope" does not exist: check dbname`}},
		{"no answer", nil, fmt.Sprintf("host=127.0.0.1 port=%d dbname=x connect_timeout=1", mutePort), []string{fmt.Sprintf("no answer from 127.0.0.1:%d within 1s (the connect timeout)", mutePort)}},
	}
	var seen []string
	for _, c := range cases {
		for _, cmdName := range []string{"diagnose", "check"} {
			cmd := exec.Command(bin, cmdName, "--publisher", c.dsn)
			cmd.Env = append(os.Environ(), c.env...)
			var out, errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			start := time.Now()
			cmd.Run()
			line := strings.TrimSpace(errOut.String())
			seen = append(seen, cmdName+" "+c.name+"\n"+out.String()+errOut.String())
			if code := cmd.ProcessState.ExitCode(); code != 2 {
				t.Errorf("%s, %s: exit code %d, want 2 (%s)", cmdName, c.name, code, line)
			}
			if strings.Count(line, "\n") > 0 || !strings.HasPrefix(line, "lagscope: ") {
				t.Errorf("%s, %s: want one line starting 'lagscope: ', got:\n%s", cmdName, c.name, line)
			}
			found := false
			for _, w := range c.want {
				found = found || strings.Contains(line, w)
			}
			if !found {
				t.Errorf("%s, %s: %q names none of %q", cmdName, c.name, line, c.want)
			}
			t.Logf("%s, %s (%.1f s): %s", cmdName, c.name, time.Since(start).Seconds(), line)
		}
	}
	return seen
}
