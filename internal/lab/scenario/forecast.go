package scenario

import (
	"errors"
	"fmt"
	"time"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/report"
)

// ForecastCheck holds a catch-up forecast that diagnose made during a lab
// run beside the catch-up the lab timed: the forecast's ground truth.
type ForecastCheck struct {
	// Standby is the physical path the forecast is of.
	Standby string
	// ForecastS is diagnose's catch_up_s, counted from its window's end.
	ForecastS float64
	// MeasuredS is the time from that end until the standby's replay was
	// first within lab.CaughtUpSlack of the publisher's moving position.
	MeasuredS float64
}

// Ratio is the forecast over the measured time.
func (f ForecastCheck) Ratio() float64 { return f.ForecastS / f.MeasuredS }

// String says it in a line.
func (f ForecastCheck) String() string {
	return fmt.Sprintf("catch-up forecast of %s at the end of diagnose's window: %.1f s; measured %.1f s (forecast/measured %.2f)", f.Standby, f.ForecastS, f.MeasuredS, f.Ratio())
}

// CheckForecast pairs the catch-up forecast of the diagnosis a lab run
// made (RunOptions.During returning a physical report) with the first
// catch-up the lab timed. It says why not when either is missing or the
// standby caught up before the diagnosis ended.
func CheckForecast(res *lab.Result) (ForecastCheck, error) {
	rep, ok := res.During.(report.Report)
	if !ok || len(rep.Physical) == 0 {
		return ForecastCheck{}, fmt.Errorf("no physical diagnosis in the run (lab run --diagnose)")
	}
	if res.Standby == nil || len(res.Standby.CatchUps) == 0 {
		return ForecastCheck{}, fmt.Errorf("no catch-up timed in the run (a scenario that releases a backlog: replay-cpu, replay-read-io)")
	}
	c := res.Standby.CatchUps[0]
	if c.CaughtUpSeconds == 0 {
		return ForecastCheck{}, errors.New("the standby's replay never came within half a second of WAL of the publisher's position while it was timed")
	}
	p := rep.Physical[0]
	end := rep.Start.Add(time.Duration(rep.WindowS * float64(time.Second)))
	left := c.ReleasedAt.Add(time.Duration(c.CaughtUpSeconds * float64(time.Second))).Sub(end).Seconds()
	switch {
	case p.CatchUpS <= 0:
		return ForecastCheck{}, fmt.Errorf("diagnose made no catch-up forecast (%q)", p.CatchUp)
	case left <= 0:
		return ForecastCheck{}, fmt.Errorf("the standby caught up %.1f s before diagnose's window ended: build a larger backlog (--backlog-time) or shorten the window (--diagnose-duration)", -left)
	}
	return ForecastCheck{Standby: p.Standby, ForecastS: p.CatchUpS, MeasuredS: left}, nil
}
