package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/lab/reproduce"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
)

// browser starts headless Debian Chromium for the test, offline.
func browser(t *testing.T) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test: runs without -short")
	}
	if os.Getenv("LAGSCOPE_TEST_ONCE") != "1" {
		t.Skip("runs once per suite: set LAGSCOPE_TEST_ONCE=1")
	}
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed: make deps installs Debian's chromium package")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1200, 900))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	ctx, cancel3 := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(cancel3)
	return ctx
}

// page is what the browser saw of one report.
type page struct {
	errors   []string // console errors, uncaught exceptions, the browser's own errors (a CSP violation)
	requests []string // every request other than the file itself
	paths    []int    // per <svg>, its <path> elements with data
	shot     []byte
	// csp says the page declares its Content-Security-Policy and its
	// stylesheet applies under it.
	csp bool
}

// open loads file in a new tab with the network off, and reads the page.
func open(t *testing.T, bctx context.Context, file string) page {
	t.Helper()
	ctx, cancel := chromedp.NewContext(bctx)
	defer cancel()
	var mu sync.Mutex
	var p page
	self := (&url.URL{Scheme: "file", Path: file}).String()
	listen := func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError {
				b, _ := json.Marshal(e.Args)
				p.errors = append(p.errors, string(b))
			}
		case *runtime.EventExceptionThrown:
			p.errors = append(p.errors, e.ExceptionDetails.Text)
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.EntryLevelError {
				p.errors = append(p.errors, e.Entry.Text)
			}
		case *network.EventRequestWillBeSent:
			if e.Request.URL != self {
				p.requests = append(p.requests, e.Request.URL)
			}
		}
	}
	if err := chromedp.Listen(ctx, listen); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	setup := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, runtime.Enable, cdp.Empty{}); err != nil {
			return err
		}
		if _, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		if _, err := cdp.Call(ctx, tg, cdplog.Enable, cdp.Empty{}); err != nil {
			return err
		}
		// The network off: the page must not need it.
		_, err := cdp.Call(ctx, tg, network.OverrideNetworkState, network.OverrideNetworkStateParams{Offline: true, DownloadThroughput: -1, UploadThroughput: -1})
		return err
	})
	err := chromedp.Do(ctx, setup, chromedp.Navigate(self), chromedp.WaitReady("body"))
	if err == nil {
		p.paths, err = chromedp.Run(ctx, chromedp.Evaluate[[]int](`Array.from(document.querySelectorAll('svg')).map(s => Array.from(s.querySelectorAll('path')).filter(x => (x.getAttribute('d') || '').length > 10).length)`))
	}
	if err == nil {
		p.csp, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('meta[http-equiv="Content-Security-Policy"]') !== null && document.styleSheets.length > 0 && document.styleSheets[0].cssRules.length > 0`))
	}
	if err == nil {
		p.shot, err = chromedp.Run(ctx, chromedp.FullScreenshot(100))
	}
	if err != nil {
		t.Fatalf("open %s in chromium: %v", file, err)
	}
	mu.Lock()
	defer mu.Unlock()
	return p
}

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
	bctx := browser(t)
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
			p := open(t, bctx, file)
			if len(p.errors) > 0 {
				t.Errorf("console errors: %s", strings.Join(p.errors, "; "))
			}
			if !p.csp {
				t.Errorf("the page declares no CSP, or its stylesheet does not apply under it")
			}
			if len(p.requests) > 0 {
				t.Errorf("requests leaving the file: %s", strings.Join(p.requests, ", "))
			}
			if len(p.paths) != c.charts {
				t.Errorf("%d charts, want %d", len(p.paths), c.charts)
			}
			for i, n := range p.paths {
				if n < 2 {
					t.Errorf("chart %d has %d data paths", i+1, n)
				}
			}
			if err := os.WriteFile(filepath.Join(shots, c.name+".png"), p.shot, 0o644); err != nil {
				t.Fatal(err)
			}
		})
	}
}
