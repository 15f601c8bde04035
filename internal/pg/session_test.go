package pg

import (
	"strings"
	"testing"
	"time"
)

// The startup parameters every observing session sends: the ones a
// database owner could otherwise turn off (ALTER DATABASE ... SET) are
// forced, whatever the connection string said.
func TestObserveForcesTheSessionSettings(t *testing.T) {
	rp := map[string]string{
		"standard_conforming_strings":   "off",
		"default_transaction_read_only": "off",
		"lock_timeout":                  "0",
		"application_name":              "psql",
		"search_path":                   "app",
	}
	observe(rp)
	want := map[string]string{
		"application_name":                    "lagscope",
		"default_transaction_read_only":       "on",
		"standard_conforming_strings":         "on",
		"statement_timeout":                   "2000",
		"lock_timeout":                        "100",
		"idle_in_transaction_session_timeout": "10000",
		"jit":                                 "off",
		"search_path":                         "pg_catalog, app", // the catalogs first, then the path given
	}
	for k, v := range want {
		if rp[k] != v {
			t.Errorf("%s = %q, want %q", k, rp[k], v)
		}
	}
	bare := map[string]string{}
	observe(bare)
	if bare["search_path"] != "pg_catalog, public" {
		t.Errorf("without a path given, search_path = %q, want the catalogs, then public", bare["search_path"])
	}
}

func TestLockTimeoutIsAtMost100ms(t *testing.T) {
	if LockTimeout <= 0 || LockTimeout > 100*time.Millisecond {
		t.Errorf("LockTimeout = %s: a catalog read must give up on a lock within 100 ms, and 0 means wait forever", LockTimeout)
	}
}

func TestSessionCheck(t *testing.T) {
	cases := []struct {
		name string
		s    Session
		want string // "" for accepted
	}{
		{"a read-only session with standard strings on PostgreSQL 15 is accepted",
			Session{VersionNum: 150010, ReadOnly: true, StandardStrings: true}, ""},
		{"a session that is not read-only is refused, naming the pooler",
			Session{VersionNum: 160004, ReadOnly: false, StandardStrings: true}, "subscriber: transaction_read_only is off"},
		{"a session with standard_conforming_strings off is refused",
			Session{VersionNum: 180001, ReadOnly: true, StandardStrings: false}, "subscriber: standard_conforming_strings is off"},
		{"PostgreSQL 12 is refused whatever its settings",
			Session{VersionNum: 120015, ReadOnly: true, StandardStrings: true}, "subscriber runs PostgreSQL 12.15: lagscope needs 13 or newer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.s.Check("subscriber")
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want == "":
				return
			case err == nil:
				t.Fatalf("accepted, want %q", c.want)
			case !strings.HasPrefix(err.Error(), c.want):
				t.Errorf("error %q, want it to start with %q", err, c.want)
			case strings.Contains(err.Error(), "\n"):
				t.Errorf("error is not one line: %q", err)
			}
			if c.s.VersionNum >= 130000 && !strings.Contains(err.Error(), "connect to the server directly") {
				t.Errorf("error does not say what to do: %q", err)
			}
		})
	}
}
