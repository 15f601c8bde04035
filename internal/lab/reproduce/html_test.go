package reproduce

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// realTable holds figures of real runs on 16.14 (docs/reproduction.md).
func realTable() *Table {
	return &Table{Experiment: "bottleneck", Seed: "000", ServerVersion: "16.14", Runs: 3,
		Sections: []Section{{Title: "link", Rows: []Row{NewRow("link 8MB/s: consumed", "10.6", "MB/s", []float64{7.9, 8.0, 8.1})},
			Ratios: []Ratio{NewRatio("link 8 vs 4 MB/s: consumed", 1.86, 1.88, 0.2, ""), NewRatio("link 16 vs 8 MB/s: consumed", 1.86, 1.11, 0.2, "")}},
			{Title: "subscriber WAL", Ratios: []Ratio{NewRatio("4 extra indexes vs PK only", 1.99, 2.03, 0.2, "")}}},
		Caveats: []string{"2 cores: the link's relay shares them"}}
}

func TestTheHTMLPageDrawsTheRatiosBesideTheSeeds(t *testing.T) {
	var b bytes.Buffer
	if err := HTML(&b, realTable()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if n := strings.Count(page, "<svg"); n != 2 {
		t.Errorf("%d charts, want one per section with ratios (2)", n)
	}
	// Two bars per ratio, as filled rectangles (paths) in the charts.
	for _, want := range []string{"1.88x", "1.11x", "outside ±20%", "within ±20%", "10.6", "2 cores"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script") || regexp.MustCompile(`(src|href)=`).MatchString(page) {
		t.Error("the page fetches or runs something")
	}
}
