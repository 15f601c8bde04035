package pg

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// nowhere is a unix-socket directory that does not exist: a connection
// attempt to it fails at once, after the password was looked up.
const nowhere = "/nonexistent-lagscope-fuzz"

// A password that comes from ~/.pgpass (PGPASSFILE), a service file
// (PGSERVICEFILE, service=...) or PGPASSWORD never shows in what Connect
// returns, however the files around it are written: the fuzzed parts are
// the password's middle and other lines of both files (which may not
// parse, and then pgx says why).
func FuzzFilesAndEnvNeverShowThePassword(f *testing.F) {
	f.Add("hunter2", "", "")
	f.Add("p:a\\ss", "# comment\nbroken line without colons", "[other]\ndbname=y")
	f.Add("it's", "*:*:*:*", "no section=here\n[svc")
	f.Add("x=y z", "db1:5432:app:bob:other", "[svc]\npassword")
	f.Fuzz(func(t *testing.T, mid, passExtra, serviceExtra string) {
		if strings.ContainsFunc(mid+passExtra+serviceExtra, func(r rune) bool { return (r < ' ' && r != '\n') || r == 0x7f }) ||
			strings.Contains(mid, "\n") || strings.Contains(serviceExtra, "host") || strings.Contains(serviceExtra, "port") {
			return // control characters, and servers the fuzzer could point at
		}
		pw := "Zq9" + mid + "Xk7"
		dir := t.TempDir()
		passfile := filepath.Join(dir, "pgpass")
		escaped := strings.NewReplacer(`\`, `\\`, `:`, `\:`).Replace(pw)
		write(t, passfile, passExtra+"\n*:*:*:*:"+escaped+"\n")
		servicefile := filepath.Join(dir, "pg_service.conf")
		write(t, servicefile, "[svc]\nhost="+nowhere+"\nport=1\ndbname=app\nuser=bob\npassword="+pw+"\n"+serviceExtra+"\n")
		t.Setenv("PGPASSFILE", passfile)
		t.Setenv("PGSERVICEFILE", servicefile)
		for _, c := range []struct{ dsn, env string }{
			{"service=svc", ""},
			{"host=" + nowhere + " port=1 user=bob dbname=app", ""},
			{"postgres://bob@" + strings.ReplaceAll(nowhere, "/", "%2F") + ":1/app", ""},
			{"host=" + nowhere + " port=1 user=bob dbname=app", pw},
			{"service=svc dbname=other", pw},
		} {
			t.Setenv("PGPASSWORD", c.env)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			_, err := Connect(ctx, c.dsn, "publisher")
			cancel()
			if err == nil {
				t.Fatalf("%q connected to %s", c.dsn, nowhere)
			}
			if out := err.Error(); strings.Contains(out, "Zq9") || strings.Contains(out, "Xk7") {
				t.Fatalf("part of password %q shows in %q (connection string %q)", pw, out, c.dsn)
			}
		}
	})
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
