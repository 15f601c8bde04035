package scenario

import (
	"strings"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/report"
)

func TestCheckForecastCountsFromTheWindowsEnd(t *testing.T) {
	release := time.Date(2026, 12, 5, 21, 0, 0, 0, time.UTC)
	rep := report.Report{Start: release.Add(500 * time.Millisecond), WindowS: 4,
		Physical: []report.PhysicalPath{{Standby: "lab_standby", CatchUpS: 9}}}
	res := &lab.Result{During: rep, Standby: &lab.StandbyResult{CatchUps: []lab.CatchUp{{ReleasedAt: release, Seconds: 12, CaughtUpSeconds: 14.5}}}}
	f, err := CheckForecast(res)
	if err != nil {
		t.Fatal(err)
	}
	// The window ended 4.5 s after the release; caught up 14.5 s after it.
	if f.MeasuredS != 10 || f.ForecastS != 9 || f.Ratio() != 0.9 {
		t.Errorf("got %+v, want forecast 9 s against 10 s measured", f)
	}
	if !strings.Contains(f.String(), "forecast/measured 0.90") {
		t.Errorf("line %q", f)
	}
}

func TestCheckForecastSaysWhyNot(t *testing.T) {
	release := time.Date(2026, 12, 5, 21, 0, 0, 0, time.UTC)
	withDiag := func(catchUpS float64, c lab.CatchUp) *lab.Result {
		rep := report.Report{Start: release, WindowS: 10, Physical: []report.PhysicalPath{{Standby: "s", CatchUpS: catchUpS}}}
		return &lab.Result{During: rep, Standby: &lab.StandbyResult{CatchUps: []lab.CatchUp{c}}}
	}
	for name, c := range map[string]struct {
		res  *lab.Result
		want string
	}{
		"no diagnosis":       {&lab.Result{}, "no physical diagnosis"},
		"no catch-up":        {&lab.Result{During: report.Report{Physical: []report.PhysicalPath{{}}}}, "no catch-up timed"},
		"never within reach": {withDiag(5, lab.CatchUp{ReleasedAt: release, Seconds: 3}), "never came within"},
		"no forecast":        {withDiag(0, lab.CatchUp{ReleasedAt: release, Seconds: 3, CaughtUpSeconds: 20}), "no catch-up forecast"},
		"caught up before":   {withDiag(5, lab.CatchUp{ReleasedAt: release, Seconds: 3, CaughtUpSeconds: 6}), "before diagnose's window ended"},
	} {
		if _, err := CheckForecast(c.res); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", name, err, c.want)
		}
	}
}
