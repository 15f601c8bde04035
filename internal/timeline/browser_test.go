package timeline

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/lagscope/lagscope/internal/testkit/browser"
)

// timelinePage is what the browser saw of the timeline beside what every
// page shows: the fill colours of the first chart's paths (the band's
// polygons), the incident table's rows with a link, and the incidents'
// sections holding a report's verdict box.
type timelinePage struct {
	browser.Page
	fills          []string
	rows, sections int
}

// openTimeline opens the timeline page file and reads it.
func openTimeline(t *testing.T, bctx context.Context, file string) timelinePage {
	t.Helper()
	var p timelinePage
	p.Page = browser.Open(t, bctx, file, func(ctx context.Context) (err error) {
		if p.fills, err = chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelector('svg').querySelectorAll('path')).map(x => getComputedStyle(x).fill).filter(f => f && f !== 'none')`)); err != nil {
			return err
		}
		if p.rows, err = chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('table.incidents tr a[href^="#incident-"]').length`)); err != nil {
			return err
		}
		p.sections, err = chromedp.Run(ctx, chromedp.Evaluate[int](`Array.from(document.querySelectorAll('section.incident')).filter(s => s.querySelector('.verdict .name') !== null && s.querySelectorAll('svg').length > 0).length`))
		return err
	})
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
	bctx := browser.Start(t)
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
	p := openTimeline(t, bctx, file)
	if len(p.Errors) > 0 {
		t.Errorf("console errors: %s", strings.Join(p.Errors, "; "))
	}
	if !p.CSP {
		t.Errorf("the page declares no CSP, or its stylesheet does not apply under it")
	}
	if len(p.Requests) > 0 {
		t.Errorf("requests leaving the file: %s", strings.Join(p.Requests, ", "))
	}
	if len(p.Paths) != 1+5*len(tl.Incidents) {
		t.Errorf("%d charts, want the timeline's and 5 per incident's report (%d incidents)", len(p.Paths), len(tl.Incidents))
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
	if err := os.WriteFile(filepath.Join(shots, "timeline.png"), p.Shot, 0o644); err != nil {
		t.Fatal(err)
	}
}

// rgb is a colour as a browser's computed style writes it.
func rgb(c interface{ RGBA() (r, g, b, a uint32) }) string {
	r, g, bl, _ := c.RGBA()
	return "rgb(" + strconv.Itoa(int(r>>8)) + ", " + strconv.Itoa(int(g>>8)) + ", " + strconv.Itoa(int(bl>>8)) + ")"
}
