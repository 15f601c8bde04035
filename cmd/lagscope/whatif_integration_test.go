package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/testkit/labtest"
)

// The bands of measured / predicted that a 'lab whatif' run must fall in:
// as wide as the spread of the runs by hand on this project's 2 vCPUs
// needs, with a margin (docs/whatif.md has the runs). tries is how many
// pairs may be made until one is measured: the apply-bound state comes out
// otherwise (inconclusive, no prediction) now and then on a shared
// machine, so a second is made when the first gives no measurement.
var whatifBands = []struct {
	args    []string
	tries   int
	lo, hi  float64
	measure string
}{
	{args: []string{"network", "--change", "link=2x", "--rate", "3MB/s"}, tries: 1, lo: 0.55, hi: 1.15,
		measure: "15.18: 0.67-0.89 in 10 runs beside another lab pair, 0.88-0.89 in 3 alone; 16.14: 0.88-0.90"},
	{args: []string{"apply-bound", "--change", "drop-extra-indexes"}, tries: 2, lo: 0.55, hi: 1.45,
		measure: "15.18: 0.67-1.17 in the 6 of 10 runs measured beside another lab pair, 0.75-0.99 in 3 alone; 16.14: 0.84-1.21 in 6"},
}

// Each change's prediction meets what the change then does in the lab:
// 'lab whatif' builds the state, diagnoses it, makes the change and
// measures the drain; the ratio must fall in the change's band. The by-hand
// runs (LAGSCOPE_TEST_REPEAT) make the medians of docs/whatif.md.
func TestIntegrationWhatifPredictionsMeetTheLab(t *testing.T) {
	labtest.Once(t)
	bin := buildLagscope(t)
	base := labBase(t)
	for _, b := range whatifBands {
		t.Run(b.args[2], func(t *testing.T) {
			args := append([]string{"lab", "whatif"}, b.args...)
			args = append(args, "--runs", "1", "--json")
			var cs model.Checks
			var stderr strings.Builder
			for try := 1; try <= b.tries && len(cs.Runs) == 0; try++ {
				cmd := exec.Command(bin, args...)
				cmd.Env = append(os.Environ(), "LAGSCOPE_LAB_DIR="+base)
				stderr.Reset()
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				// Exit 3: the run gave no measurement (its state came out
				// otherwise): the JSON says why.
				if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 3) {
					t.Fatalf("lagscope %s: %v\n%s\n%s", strings.Join(args, " "), err, out, stderr.String())
				}
				if err := json.Unmarshal(out, &cs); err != nil {
					t.Fatalf("lab whatif --json: %v\n%s\n%s", err, out, stderr.String())
				}
				for _, f := range cs.Failed {
					t.Logf("try %d of %d, no measurement: %s", try, b.tries, f)
				}
			}
			if len(cs.Runs) == 0 {
				t.Fatalf("lab whatif: no measurement in %d tries\n%s", b.tries, stderr.String())
			}
			for _, c := range cs.Runs {
				t.Logf("%s on %s: %s -> %s, today %.1f MB/s, predicted %.1f MB/s (%s), measured %.1f MB/s: %.2f (band %.2f-%.2f: %s)",
					c.Change, c.Version, c.Verdict, c.After, c.Today/1e6, c.Predicted/1e6, c.LimitedBy, c.Measured/1e6, c.Ratio, b.lo, b.hi, b.measure)
				if c.Ratio < b.lo || c.Ratio > b.hi {
					t.Errorf("%s: measured / predicted %.2f, outside %.2f-%.2f\n%s", c.Change, c.Ratio, b.lo, b.hi, stderr.String())
				}
			}
		})
	}
}
