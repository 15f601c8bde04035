package exporter

import (
	"os/exec"
	"testing"
)

// The alert rules shipped in docs/prometheus load in Prometheus and fire as
// their tests say (promtool, from Debian's prometheus package).
func TestTheAlertRulesPassPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool is not installed: make deps installs Debian's prometheus package")
	}
	for _, args := range [][]string{
		{"check", "rules", "alerts.yml"},
		{"test", "rules", "alerts_test.yml"},
	} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = "../../docs/prometheus"
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %v: %v\n%s", args, err, out)
		}
	}
}
