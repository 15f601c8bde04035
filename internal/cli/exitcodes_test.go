package cli

import (
	"net"
	"strings"
	"testing"
)

// Every row of ExitCodes is produced by a real case (130, a signal, is
// the signals integration test's), and --help prints the table.
func TestExitCodes(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	closedAddr := closed.Addr().String()
	closed.Close()
	_, closedPort, _ := net.SplitHostPort(closedAddr)
	rec := func(name string) string { return "../classify/testdata/" + name + ".json" }
	cases := []struct {
		name string
		args []string
		want int
	}{
		{"version", []string{"version"}, ExitOK},
		{"--version", []string{"--version"}, ExitOK},
		{"help of a command", []string{"help", "diagnose"}, ExitOK},
		{"caught up", []string{"diagnose", "--from-samples", rec("caught-up-pg16-diag")}, ExitOK},
		{"a bottleneck", []string{"diagnose", "--from-samples", rec("apply-bound-pg16-diag")}, ExitFinding},
		{"a stop", []string{"diagnose", "--from-samples", rec("stalled-pg18-diag")}, ExitFinding},
		{"a consumer that confirms late", []string{"diagnose", "--from-samples", rec("lazy-confirmer-pg16-diag")}, ExitFinding},
		{"lag the window could not explain", []string{"diagnose", "--from-samples", rec("mixed-both-starved-pg15")}, ExitFinding},
		{"an unknown command", []string{"nosuch"}, ExitUsage},
		{"an unknown subcommand", []string{"lab", "nosuch"}, ExitUsage},
		{"an unknown help topic", []string{"help", "nosuch"}, ExitUsage},
		{"a stray argument", []string{"diagnose", "stray", "--publisher", "host=x"}, ExitUsage},
		{"an unknown flag", []string{"diagnose", "--nosuch"}, ExitUsage},
		{"a bad flag value", []string{"diagnose", "--publisher", "host=x", "--probe-hz", "NaN"}, ExitUsage},
		{"a connection string that does not parse", []string{"watch", "--publisher", "host=x port=y"}, ExitUsage},
		{"a bad listen address", []string{"exporter", "--publisher", "host=x", "--listen", "bogus"}, ExitUsage},
		{"a refused connection", []string{"check", "--publisher", "host=127.0.0.1 port=" + closedPort}, ExitUsage},
		{"a missing file", []string{"report", "--input", "/nonexistent.json"}, ExitUsage},
		{"a listen address in use", []string{"exporter", "--publisher", "host=127.0.0.1 port=" + closedPort, "--listen", busy.Addr().String()}, ExitFailure},
	}
	seen := map[int]bool{}
	for _, c := range cases {
		out, code, _ := run(t, c.args...)
		if code != c.want {
			t.Errorf("%s (%s): exit code %d, want %d; output %q", c.name, strings.Join(c.args, " "), code, c.want, head(out))
		}
		seen[code] = true
	}
	for _, e := range ExitCodes {
		if !seen[e.Code] && e.Code != ExitInterrupted {
			t.Errorf("no case gives exit code %d (%s)", e.Code, e.Meaning)
		}
	}
	out, _, _ := run(t, "--help")
	for _, e := range ExitCodes {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), e.Meaning) {
			t.Errorf("--help lacks exit code %d: %q", e.Code, e.Meaning)
		}
	}
}

func head(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}
