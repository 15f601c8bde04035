package diagnose

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/testkit/recordings"
)

// Every recording's report agrees with itself: the lag in time is the
// backlog over the rate it prints; a rate under 1 MB/s is not printed in
// MB/s; "on a full core" stands only beside a CPU share of one; "busy
// publisher" and "host is saturated" only beside a busy host.
func TestEveryReportAgreesWithItself(t *testing.T) {
	exps, err := recordings.Load("../classify/testdata")
	if err != nil {
		t.Fatal(err)
	}
	lagRE := regexp.MustCompile(`lag in time: about ([0-9.]+) (ms|s|min|h): ([0-9.]+) (B|kB|MB|GB) of backlog at the ([0-9.]+) (B|kB|MB|GB)/s it drains`)
	smallMB := regexp.MustCompile(`\b0\.[0-9] MB/s`)
	unit := map[string]float64{"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9, "ms": 1e-3, "s": 1, "min": 60, "h": 3600}
	checked := 0
	for _, e := range exps {
		name := strings.TrimSuffix(filepath.Base(e.File), ".json")
		rec, err := recordings.Read("../classify/testdata", name)
		if err != nil {
			t.Fatal(err)
		}
		rep := Build(rec, nil, 20)
		var out bytes.Buffer
		if err := report.Text(&out, rep); err != nil {
			t.Fatal(err)
		}
		text := strings.Join(strings.Fields(out.String()), " ") // unwrapped
		for format := range report.Renderers {
			var any bytes.Buffer
			report.Render(&any, rep, format)
			// User-facing text speaks of the user's system: no internal
			// experiment names (seed 000, seed 001, ...).
			if i := strings.Index(strings.ToLower(any.String()), "seed"); i >= 0 {
				t.Errorf("%s (%s): an internal experiment named in the report: %q", name, format, any.String()[max(0, i-40):min(any.Len(), i+40)])
			}
		}
		if m := smallMB.FindString(text); m != "" {
			t.Errorf("%s: a rate under 1 MB/s printed as %q", name, m)
		}
		for _, m := range lagRE.FindAllStringSubmatch(text, -1) {
			got := num(m[1]) * unit[m[2]]
			want := num(m[3]) * unit[m[4]] / (num(m[5]) * unit[m[6]])
			// Each printed figure is rounded to 2-3 digits.
			if got < want*0.85-0.05 || got > want*1.15+0.05 {
				t.Errorf("%s: %q: the figures give %.2f s", name, m[0], want)
			}
		}
		for _, p := range rep.Paths {
			for _, st := range p.Stages {
				if st.Name == p.Limit && st.CPU >= 0 && st.CPU < model.FullCore && strings.Contains(p.Headline, "full core") {
					t.Errorf("%s: %q beside an apply CPU of %.0f%%", name, p.Headline, 100*st.CPU)
				}
			}
			for _, h := range []struct{ words string }{{"busy publisher"}, {"host is saturated"}} {
				if strings.Contains(p.Headline, h.words) && hostBusy(text) >= 0 && hostBusy(text) < 100*model.BusyHost {
					t.Errorf("%s: %q beside a host %.0f%% busy", name, p.Headline, hostBusy(text))
				}
			}
		}
		checked++
	}
	if checked < 100 {
		t.Errorf("checked %d recordings, want the whole set (100+)", checked)
	}
}

var hostBusyRE = regexp.MustCompile(`host CPU busy ([0-9]+)%`)

// hostBusy is the first "host CPU busy N%" of text (-1: none).
func hostBusy(text string) float64 {
	m := hostBusyRE.FindStringSubmatch(text)
	if m == nil {
		return -1
	}
	return num(m[1])
}

func num(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}
