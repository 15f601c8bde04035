package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/testkit/recordings"
)

// seriesOf builds a one-path report with the series of a recorded run (the
// report package cannot call diagnose: its charts only need the series).
func seriesOf(t *testing.T, file, slot string) Report {
	t.Helper()
	rec, err := recordings.Read("../classify/testdata", strings.TrimSuffix(file, ".json"))
	if err != nil {
		t.Fatal(err)
	}
	s := measure.SeriesOf(rec, slot)
	return Report{SchemaVersion: SchemaVersion, Tool: "lagscope", Start: rec.Start, WindowS: 10, ProbeHz: 20,
		Publisher: Server{Version: rec.Server(sample.PublisherNode).Version}, Paths: []Path{{Slot: slot, Series: &s}}}
}

var svgPath = regexp.MustCompile(`<path[^>]* d="M[^"]+"`)

// The HTML report is one file that fetches nothing: no scripts, no
// stylesheets or images by address, and every chart has drawn data.
func TestTheHTMLReportIsSelfContainedWithDrawnCharts(t *testing.T) {
	r := seriesOf(t, "apply-bound-pg16-diag.json", "lab_sub")
	var b bytes.Buffer
	if err := HTML(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script", "<link", "@import", "url(", "src="} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q: it must fetch nothing", bad)
		}
	}
	for _, addr := range regexp.MustCompile(`https?://[^"' )]+`).FindAllString(page, -1) {
		if addr != "http://www.w3.org/2000/svg" && addr != "http://www.w3.org/1999/xlink" {
			t.Errorf("the page names %s", addr)
		}
	}
	charts := strings.Split(page, "<svg")[1:]
	if len(charts) != 5 {
		t.Fatalf("%d charts, want 5 (lag, rates, CPU, wait events of the walsender and of the apply worker)", len(charts))
	}
	for i, c := range charts {
		if n := len(svgPath.FindAllString(c, -1)); n < 3 {
			t.Errorf("chart %d has %d drawn paths, want data", i+1, n)
		}
	}
}

func TestAReportWithoutASeriesRendersWithoutCharts(t *testing.T) {
	var b bytes.Buffer
	if err := HTML(&b, Report{SchemaVersion: 1, Tool: "lagscope", Paths: []Path{{Slot: "s"}}}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "<svg") || !strings.Contains(b.String(), "no charts") {
		t.Errorf("a schema 1 path drew charts or did not say why not")
	}
}
