package cli

import (
	"net"
	"strings"
	"testing"
)

func TestDiagnosePhysicalFlagsAreWiredWithOneLineErrors(t *testing.T) {
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	_, port, _ := net.SplitHostPort(closed.Addr().String())
	closed.Close()
	refused := "host=127.0.0.1 port=" + port + " user=u password=hunter2 dbname=x"
	for _, c := range []struct {
		name   string
		args   []string
		wantIn string
	}{
		{"a refused standby is named and its password kept out", []string{"diagnose", "--standby", refused, "--duration", "2s"}, "standby"},
		{"a refused primary is named", []string{"diagnose", "--primary", refused, "--duration", "2s"}, "primary"},
		{"a physical and a logical pair at once are refused", []string{"diagnose", "--primary", "host=a", "--publisher", "host=b"}, "give one pair of flags"},
		{"a slot has no meaning on a physical path", []string{"diagnose", "--standby", "host=a", "--slot", "s"}, "--slot and --subscription select a logical path"},
		{"a bad standby connection string is named", []string{"diagnose", "--standby", "postgres://[::1"}, "standby connection string"},
		{"--from-samples takes no server", []string{"diagnose", "--from-samples", "x.json", "--standby", "host=a"}, "drop --publisher, --subscriber, --primary, --standby"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, code, _ := run(t, c.args...)
			if code != ExitUsage || !strings.Contains(out, c.wantIn) || strings.Contains(out, "hunter2") || strings.Count(strings.TrimSpace(out), "\n") > 0 {
				t.Errorf("exit %d, output %q: want exit %d and one line naming %q, no password", code, out, ExitUsage, c.wantIn)
			}
		})
	}
}

func TestDiagnoseHelpTeachesThePhysicalPath(t *testing.T) {
	out, code, _ := run(t, "diagnose", "--help")
	for _, want := range []string{"--primary", "--standby", "startup process", "pg_last_xact_replay_timestamp()", "--standby must point at a server\nin recovery"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q", want)
		}
	}
	if code != 0 {
		t.Errorf("exit %d", code)
	}
}
