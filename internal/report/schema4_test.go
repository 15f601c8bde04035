package report

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/model"
)

// A report saved by a lagscope before schema 5 (-1 for unknown figures,
// consumed_mb_per_s) reads as the same report, and writes the unknown
// figures as null and the rate as confirmed_mb_per_s.
func TestASchema4ReportReadsAndWritesNulls(t *testing.T) {
	f, err := os.Open("testdata/network-pg16-schema4.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := Read(f)
	if err != nil {
		t.Fatal(err)
	}
	p := r.Paths[0]
	if p.ConfirmedMBps < 5 || p.ConfirmedMBps > 5.2 {
		t.Errorf("confirmed %.2f MB/s, want the 5.1 MB/s saved as consumed_mb_per_s", p.ConfirmedMBps)
	}
	link, ok := model.Stages(p.Stages).Find(model.StageLink)
	if !ok || link.Utilisation != -1 || link.CPU != -1 || link.Known() {
		t.Errorf("link stage %+v, want unknown (-1)", link)
	}
	if p.LagTime.FlushLagS.Known() {
		t.Errorf("flush_lag_s %v, want not measured", p.LagTime.FlushLagS)
	}
	var out bytes.Buffer
	if err := JSON(&out, r); err != nil {
		t.Fatal(err)
	}
	js := out.String()
	for _, want := range []string{`"utilisation": null`, `"flush_lag_s": null`, `"confirmed_mb_per_s": 5.1`} {
		if !strings.Contains(js, want) {
			t.Errorf("written again, it lacks %s", want)
		}
	}
	if strings.Contains(js, "consumed_mb_per_s") || strings.Contains(js, ": -1") {
		t.Errorf("written again, it still has consumed_mb_per_s or a -1")
	}
}
