package report_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/lab/reproduce"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/testkit/browser"
)

// reproducePage writes a 'lab reproduce --html' page of a table holding a
// real 16.14 run's link ratios (docs/reproduction.md).
func reproducePage(t *testing.T, dir string) string {
	t.Helper()
	tb := &reproduce.Table{Experiment: "bottleneck", Seed: "000", ServerVersion: "16.14", Runs: 3,
		Sections: []reproduce.Section{{Title: "link", Ratios: []reproduce.Ratio{
			reproduce.NewRatio("link 8 vs 4 MB/s: consumed", 1.86, 1.88, 0.2, ""),
			reproduce.NewRatio("link 16 vs 8 MB/s: consumed", 1.86, 1.11, 0.2, "")}}}}
	var b bytes.Buffer
	if err := reproduce.HTML(&b, tb); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "reproduce-source.html")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// diagnosis builds the report of a recorded real run.
func diagnosis(t *testing.T, name string) report.Report {
	t.Helper()
	f, err := os.Open("../classify/testdata/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := sample.ReadRecording(f)
	if err != nil {
		t.Fatal(err)
	}
	return diagnose.Build(rec, nil, 20)
}

// Each kind of HTML report opens in headless Chromium with the network off:
// no console error (a CSP violation is one), the CSP declared and the
// stylesheet applied under it, no request leaving the file, every chart drawn with
// data. Screenshots (PNG) go to $LAGSCOPE_SCREENSHOT_DIR (docs/img for the
// README) or the test's temporary directory.
func TestIntegrationHTMLReportsOpenInChromiumOffline(t *testing.T) {
	bctx := browser.Start(t)
	shots := os.Getenv("LAGSCOPE_SCREENSHOT_DIR")
	if shots == "" {
		shots = t.TempDir()
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name, recording string
		// page is an HTML file already rendered (check's golden file),
		// instead of a recording to diagnose.
		page   string
		charts int
		// preface makes it a 'lab run --html' page (the lab's text above).
		preface bool
	}{
		{name: "diagnose-apply-bound", recording: "apply-bound-pg16-diag", charts: 5},
		{name: "diagnose-network", recording: "network-pg16-diag", charts: 5},
		{name: "diagnose-walsender-starved", recording: "walsender-starved-pg16-diag", charts: 5},
		{name: "check-misconfigured", page: "../audit/testdata/misconfigured-pg16.html"},
		{name: "lab-run-subscriber-lock", recording: "subscriber-lock-pg16-diag", charts: 5, preface: true},
		{name: "lab-reproduce-bottleneck", page: reproducePage(t, dir), charts: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(dir, c.name+".html")
			if c.page != "" {
				b, err := os.ReadFile(c.page)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, b, 0o644); err != nil {
					t.Fatal(err)
				}
			} else {
				var b bytes.Buffer
				var pre []report.Preface
				if c.preface {
					pre = append(pre, report.Preface{Title: "lab run " + c.name, Text: "scenario subscriber-lock\nconsumed 0.0 MB/s"})
				}
				if err := report.HTMLPage(&b, diagnosis(t, c.recording), pre...); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			p := browser.Open(t, bctx, file, nil)
			if len(p.Errors) > 0 {
				t.Errorf("console errors: %s", strings.Join(p.Errors, "; "))
			}
			if !p.CSP {
				t.Errorf("the page declares no CSP, or its stylesheet does not apply under it")
			}
			if len(p.Requests) > 0 {
				t.Errorf("requests leaving the file: %s", strings.Join(p.Requests, ", "))
			}
			if len(p.Paths) != c.charts {
				t.Errorf("%d charts, want %d", len(p.Paths), c.charts)
			}
			for i, n := range p.Paths {
				if n < 2 {
					t.Errorf("chart %d has %d data paths", i+1, n)
				}
			}
			if err := os.WriteFile(filepath.Join(shots, c.name+".png"), p.Shot, 0o644); err != nil {
				t.Fatal(err)
			}
		})
	}
}
