package cli

import (
	"bytes"
	"context"
	"net"
	"strings"
	"testing"
	"time"
)

// run executes the command tree with args and returns output, exit code and
// how long it took.
func run(t *testing.T, args ...string) (string, int, time.Duration) {
	t.Helper()
	root := NewRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	start := time.Now()
	err := root.ExecuteContext(context.Background())
	if err != nil {
		out.WriteString(Message(err))
	}
	return out.String(), ExitCode(err), time.Since(start)
}

func TestDiagnoseBadInput(t *testing.T) {
	// A listener that accepts and never answers: a host that does not respond.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	_, silentPort, _ := net.SplitHostPort(silent.Addr().String())
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	_, closedPort, _ := net.SplitHostPort(closed.Addr().String())
	closed.Close()

	cases := []struct {
		name    string
		args    []string
		wantIn  string
		maxTime time.Duration
	}{
		{"a refused connection is one line and exit 2",
			[]string{"diagnose", "--publisher", "host=127.0.0.1 port=" + closedPort + " user=u password=hunter2 dbname=x"},
			"connect to publisher", 5 * time.Second},
		{"a server that never answers times out within about 5 s",
			[]string{"diagnose", "--publisher", "postgres://u:hunter2@127.0.0.1:" + silentPort + "/x"},
			"connect to publisher", 8 * time.Second},
		{"a malformed connection string says how to write one",
			[]string{"diagnose", "--publisher", "host='unterminated password=hunter2"},
			"connection string", time.Second},
		{"an unknown flag is a usage error", []string{"diagnose", "--publisherr", "x"}, "unknown flag", time.Second},
		{"a too short duration is a usage error", []string{"diagnose", "--publisher", "host=x", "--duration", "1s"}, "too short", time.Second},
		{"an unknown format is a usage error", []string{"diagnose", "--publisher", "host=x", "--format", "yaml"}, "--format", time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, code, took := run(t, c.args...)
			if code != ExitUsage {
				t.Errorf("exit code %d, want %d; output %q", code, ExitUsage, out)
			}
			if !strings.Contains(out, c.wantIn) {
				t.Errorf("output %q does not mention %q", out, c.wantIn)
			}
			if strings.Contains(out, "hunter2") {
				t.Errorf("output shows the password: %q", out)
			}
			if n := strings.Count(strings.TrimSpace(out), "\n"); n > 0 {
				t.Errorf("error is %d lines, want one: %q", n+1, out)
			}
			if took > c.maxTime {
				t.Errorf("took %s, want at most %s", took, c.maxTime)
			}
		})
	}
}
