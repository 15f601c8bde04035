package exporter

import (
	"bytes"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/pg"
)

// Any pairs file is refused with a one-line error or gives pairs that
// either validate or are refused; no error holds a password: none that
// Redact would hide (one written into a connection string of the file),
// nor the one a *_password_env variable gives.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte("pairs:\n  - name: orders-eu\n    publisher: host=db1 dbname=app user=lagscope\n    subscriber: host=db2 dbname=app\n    subscriber_password_env: DB2_PASSWORD\n"))
	f.Add([]byte("window: 30s\nstep: 10s\npairs:\n  - name: a\n    publisher: postgres://u:Zq9secretXk7@db1/app\n"))
	f.Add([]byte("pairs:\n  - name: b\n    publisher: host=db1 password='Zq9 s\\'ecretXk7'\n    window: -5s\n"))
	f.Add([]byte("pairs: []\n"))
	f.Add([]byte("pairs:\n  - name: \"bad name\"\n    publisher: \"host=db1\"\n    slot: x\n    no_proc: yes\n"))
	f.Add([]byte("{pairs: [{name: c, publisher: 'host=db1', probe_hz: 1e9}]}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseConfig(b)
		if err == nil {
			_, err = c.Monitors(func(string) string { return "Zq9fromenvXk7" })
		}
		if err == nil {
			return
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") {
			t.Fatalf("error of more than one line: %q", msg)
		}
		if pg.Redact(msg) != msg {
			t.Fatalf("a password shows in the error %q", msg)
		}
		if strings.Contains(msg, "fromenv") && !bytes.Contains(b, []byte("fromenv")) {
			t.Fatalf("the password from the environment shows in the error %q", msg)
		}
	})
}
