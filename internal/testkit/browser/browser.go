// Package browser opens lagscope's offline HTML pages in headless Debian
// Chromium for tests (chromedp): with the network off, it collects what
// the page logged as errors and every request it tried, and what it drew.
package browser

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Start starts headless Debian Chromium for the test, offline. It skips
// the test under -short, without LAGSCOPE_TEST_ONCE=1 (a browser test
// runs once per suite) and where chromium is not installed.
func Start(t testing.TB) context.Context {
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

// Page is what the browser saw of one page.
type Page struct {
	// Errors are console errors, uncaught exceptions and the browser's
	// own errors (a CSP violation is one); Requests every request other
	// than the file itself.
	Errors, Requests []string
	// Paths counts, per <svg>, its <path> elements with data.
	Paths []int
	// CSP says the page declares its Content-Security-Policy and its
	// stylesheet applies under it.
	CSP bool
	// Shot is a full-page screenshot (PNG).
	Shot []byte
}

// Open loads file in a new tab of the browser bctx (Start) with the
// network off, and reads the page; more, if not nil, reads what else a
// test wants of the page in that tab before the screenshot.
func Open(t testing.TB, bctx context.Context, file string, more func(ctx context.Context) error) Page {
	t.Helper()
	ctx, cancel := chromedp.NewContext(bctx)
	defer cancel()
	var mu sync.Mutex
	var p Page
	self := (&url.URL{Scheme: "file", Path: file}).String()
	listen := func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError {
				b, _ := json.Marshal(e.Args)
				p.Errors = append(p.Errors, string(b))
			}
		case *runtime.EventExceptionThrown:
			p.Errors = append(p.Errors, e.ExceptionDetails.Text)
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.EntryLevelError {
				p.Errors = append(p.Errors, e.Entry.Text)
			}
		case *network.EventRequestWillBeSent:
			if e.Request.URL != self {
				p.Requests = append(p.Requests, e.Request.URL)
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
		p.Paths, err = chromedp.Run(ctx, chromedp.Evaluate[[]int](`Array.from(document.querySelectorAll('svg')).map(s => Array.from(s.querySelectorAll('path')).filter(x => (x.getAttribute('d') || '').length > 10).length)`))
	}
	if err == nil {
		p.CSP, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('meta[http-equiv="Content-Security-Policy"]') !== null && document.styleSheets.length > 0 && document.styleSheets[0].cssRules.length > 0`))
	}
	if err == nil && more != nil {
		err = more(ctx)
	}
	if err == nil {
		p.Shot, err = chromedp.Run(ctx, chromedp.FullScreenshot(100))
	}
	if err != nil {
		t.Fatalf("open %s in chromium: %v", file, err)
	}
	mu.Lock()
	defer mu.Unlock()
	return p
}
