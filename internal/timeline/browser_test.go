package timeline

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// The browser helpers are internal/report's (browser_test.go), with what
// this page shows besides: the band's colours and the incidents' rows and
// sections.

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
	// fills are the fill colours of the first chart's paths (the band's
	// polygons), rows the incident table's rows with a link, sections the
	// incidents' sections holding a report's verdict box.
	fills          []string
	rows, sections int
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
		p.fills, err = chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelector('svg').querySelectorAll('path')).map(x => getComputedStyle(x).fill).filter(f => f && f !== 'none')`))
	}
	if err == nil {
		p.rows, err = chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('table.incidents tr a[href^="#incident-"]').length`))
	}
	if err == nil {
		p.sections, err = chromedp.Run(ctx, chromedp.Evaluate[int](`Array.from(document.querySelectorAll('section.incident')).filter(s => s.querySelector('.verdict .name') !== null && s.querySelectorAll('svg').length > 0).length`))
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

// The HTML timeline of a recording made by the recorder (six lab runs in
// a row) opens in headless Chromium with the network off: no console
// error (a CSP violation is one), the CSP declared and the stylesheet
// applied, no request, the chart drawn with the band in each stage's
// colour and caught up's, a table row and a section with its report for
// each incident. The screenshot goes to $LAGSCOPE_SCREENSHOT_DIR or the
// test's temporary directory.
func TestIntegrationTheHTMLTimelineOpensInChromiumOffline(t *testing.T) {
	bctx := browser(t)
	shots := os.Getenv("LAGSCOPE_SCREENSHOT_DIR")
	if shots == "" {
		shots = t.TempDir()
	}
	dir, t0 := record(t, "", stitched)
	tl, err := Read(dir, t0, t0.Add(time.Duration(len(stitched))*10*time.Second), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := HTML(&b, tl, time.UTC); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "timeline.html")
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
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
	if len(p.paths) != 1+5*len(tl.Incidents) {
		t.Errorf("%d charts, want the timeline's and 5 per incident's report (%d incidents)", len(p.paths), len(tl.Incidents))
	}
	want := map[string]bool{rgb(bandCaughtUp.colour): false}
	for _, in := range tl.Incidents {
		if in.Limit != "" {
			want[rgb(bandOf(Window{Limit: in.Limit}).colour)] = false
		}
	}
	for _, f := range p.fills {
		if _, ok := want[f]; ok {
			want[f] = true
		}
	}
	for c, seen := range want {
		if !seen {
			t.Errorf("the band has no %s (fills drawn: %v)", c, p.fills)
		}
	}
	if p.rows != len(tl.Incidents) || p.sections != len(tl.Incidents) {
		t.Errorf("%d linked rows and %d sections with a report, want %d of each", p.rows, p.sections, len(tl.Incidents))
	}
	if err := os.WriteFile(filepath.Join(shots, "timeline.png"), p.shot, 0o644); err != nil {
		t.Fatal(err)
	}
}

// rgb is a colour as a browser's computed style writes it.
func rgb(c interface{ RGBA() (r, g, b, a uint32) }) string {
	r, g, bl, _ := c.RGBA()
	return "rgb(" + strconv.Itoa(int(r>>8)) + ", " + strconv.Itoa(int(g>>8)) + ", " + strconv.Itoa(int(bl>>8)) + ")"
}
