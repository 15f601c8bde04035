package exporter

import (
	"strings"
	"testing"
)

func TestConfig(t *testing.T) {
	env := map[string]string{"DB2_PW": `it's\secret`}
	getenv := func(k string) string { return env[k] }
	cases := []struct {
		name, yaml string
		err        string // "" = valid
	}{
		{"two pairs with defaults parse", `
window: 20s
pairs:
  - name: orders-eu
    publisher: host=db1 dbname=app user=lagscope
    subscriber: host=db2 dbname=app user=lagscope
    subscriber_password_env: DB2_PW
  - name: cdc
    publisher: postgres://lagscope@db3/app
`, ""},
		{"an unknown field is an error, not a dropped setting", "pairs:\n  - name: a\n    publisher: host=x\n    subscribr: host=y\n", "subscribr"},
		{"a file without pairs is an error", "window: 30s\n", "no pairs"},
		{"a password in a keyword/value string is refused", "pairs:\n  - name: a\n    publisher: host=x password=hunter2\n", "holds a password"},
		{"a password in a URI is refused", "pairs:\n  - name: a\n    publisher: postgres://u:hunter2@x/app\n", "holds a password"},
		{"an sslpassword in a keyword/value string is refused as a password is", "pairs:\n  - name: a\n    publisher: host=x sslpassword=hunter2\n", "holds a password or sslpassword"},
		{"an sslpassword in a URI's parameters is refused as a password is", "pairs:\n  - name: a\n    subscriber: postgres://u@x/app?sslpassword=hunter2\n    publisher: host=x\n", "holds a password or sslpassword"},
		{"a password variable that is not set is an error", "pairs:\n  - name: a\n    publisher: host=x\n    publisher_password_env: NOPE\n", "NOPE"},
		{"two pairs cannot share a name", "pairs:\n  - name: a\n    publisher: host=x\n  - name: a\n    publisher: host=y\n", "used twice"},
		{"a name with spaces is refused", "pairs:\n  - name: a b\n    publisher: host=x\n", "name"},
		{"a physical standby's pair parses, with the standby's password from the environment", `
pairs:
  - name: replica
    primary: host=db1 dbname=postgres user=lagscope
    standby: host=db1r dbname=postgres user=lagscope
    standby_password_env: DB2_PW
  - name: replicas-of-db1
    primary: host=db1 dbname=postgres
`, ""},
		{"a pair that is both logical and physical is refused in one line", "pairs:\n  - name: a\n    publisher: host=x\n    standby: host=y\n", "not both"},
		{"a physical pair with a slot is refused", "pairs:\n  - name: a\n    standby: host=y\n    slot: s\n", "not both"},
		{"a password in a standby's connection string is refused", "pairs:\n  - name: a\n    standby: host=y password=hunter2\n", "the standby connection string holds a password"},
		{"a primary's password variable that is not set is an error", "pairs:\n  - name: a\n    primary: host=x\n    primary_password_env: NOPE\n", "NOPE"},
		{"a publisher's password variable on a physical pair is refused", "pairs:\n  - name: a\n    primary: host=x\n    publisher_password_env: DB2_PW\n", "primary_password_env"},
		{"a step longer than the window is refused", "pairs:\n  - name: a\n    publisher: host=x\n    window: 10s\n    step: 20s\n", "step"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := ParseConfig([]byte(c.yaml))
			var n int
			if err == nil {
				ms, merr := cfg.Monitors(getenv)
				err, n = merr, len(ms)
				if merr == nil && ms[0].Window != cfg.Window && cfg.Window != 0 {
					t.Errorf("window %s, want the file's default %s", ms[0].Window, cfg.Window)
				}
			}
			switch {
			case c.err == "" && err != nil:
				t.Fatalf("error %v, want none", err)
			case c.err == "" && n != len(cfg.Pairs):
				t.Errorf("%d monitors, want %d", n, len(cfg.Pairs))
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("error %v, want one naming %q", err, c.err)
			}
			if err != nil && strings.Contains(err.Error(), "hunter2") {
				t.Errorf("the error shows the password: %v", err)
			}
		})
	}
}

func TestAPasswordFromTheEnvironmentIsQuotedIntoTheConnectionString(t *testing.T) {
	dsn, err := withPassword("a", "subscriber", "host=db2 dbname=app", "PW", func(string) string { return `it's\x` })
	if err != nil {
		t.Fatal(err)
	}
	if want := `host=db2 dbname=app password='it\'s\\x'`; dsn != want {
		t.Errorf("dsn %q, want %q", dsn, want)
	}
}
