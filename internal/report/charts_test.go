package report

import (
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/lagscope/lagscope/internal/model"
)

// One wait event keeps one colour in every chart, two events of a chart
// never share one, and CPU and "other" keep theirs.
func TestAWaitEventHasOneColourEverywhere(t *testing.T) {
	a := eventColours([]string{"WalSenderWriteData", "CPU", "other"})
	b := eventColours([]string{"PgSleep", "WalSenderWriteData", "LogicalApplyMain", "CPU", "other"})
	if a[0] != b[1] || a[1] != b[3] || a[2] != b[4] {
		t.Errorf("the same event got another colour in another chart: %v vs %v", a, b)
	}
	seen := map[any]string{}
	for i, ev := range []string{"PgSleep", "WalSenderWriteData", "LogicalApplyMain", "CPU", "other"} {
		if other, ok := seen[b[i]]; ok {
			t.Errorf("%s and %s share a colour in one chart", ev, other)
		}
		seen[b[i]] = ev
	}
}

// Every legend entry is drawn in the strip right of the data, never over
// it.
func TestTheLegendIsOutsideTheData(t *testing.T) {
	p := seriesOf(t, "apply-bound-pg16-diag.json", "lab_sub").Paths[0]
	charts, err := Charts(p)
	if err != nil || len(charts) < 3 {
		t.Fatalf("%d charts, %v", len(charts), err)
	}
	width := 7 * vg.Inch
	strip := float64((width - LegendWidth).Points())
	text := regexp.MustCompile(`<text x="([0-9.]+)"[^>]*>(not yet sent|generated|confirmed|other)</text>`)
	found := 0
	for _, c := range charts {
		for _, m := range text.FindAllStringSubmatch(c.SVG, -1) {
			x, _ := strconv.ParseFloat(m[1], 64)
			found++
			if x < strip {
				t.Errorf("%s: legend entry %q at x=%.0f, inside the data (the strip starts at %.0f)", c.Title, m[2], x, strip)
			}
		}
	}
	if found < 3 {
		t.Errorf("found %d legend entries in the SVG", found)
	}
}

// The HTML pipeline picture shows every stage in order with its
// utilisation, the unmeasured link as such, and marks the limit.
func TestThePipelineMarksTheLimit(t *testing.T) {
	p := Path{}
	p.Stages = []model.Stage{
		{Name: model.StageWalsender, Utilisation: 0.22, Role: "next"},
		{Name: model.StageLink, Utilisation: -1, Role: "limit"},
		{Name: model.StageApply, Utilisation: 0.255},
	}
	got := pipeline(p)
	want := []pipeBox{{"walsender", "22% busy", "next", 22}, {"link", "not measured", "limit", 0}, {"apply", "26% busy", "", 26}}
	if len(got) != len(want) {
		t.Fatalf("pipeline %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("box %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// A report file's figures may be out of any range: the charts leave out the
// points they cannot draw instead of refusing the page.
func TestChartsDrawAReportWithFiguresOutOfRange(t *testing.T) {
	for _, v := range []string{"1e308", "1e306", "-1e308"} {
		b := `{"tool":"lagscope","schema_version":7,"paths":[{"slot":"s","verdict":"caught-up","series":{"points":[{"at":"2026-12-02T04:00:00Z","current_lsn":"0/1"},{"at":"2026-12-02T04:00:01Z","current_lsn":"0/2"}],` +
			`"procs":[{"at":"2026-12-02T04:00:00Z","role":"walsender","cpu_share":V,"runqueue_share":V,"wait_shares":{"a":V}},{"at":"2026-12-02T04:00:01Z","role":"walsender","cpu_share":V,"runqueue_share":V,"wait_shares":{"a":V,"b":V}}]}}]}`
		r, err := Read(strings.NewReader(strings.ReplaceAll(b, "V", v)))
		if err != nil {
			t.Fatal(err)
		}
		if err := HTML(io.Discard, r); err != nil {
			t.Errorf("figures of %s: %v", v, err)
		}
	}
}
