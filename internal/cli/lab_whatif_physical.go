//go:build linux

package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/lab"
	labwhatif "github.com/lagscope/lagscope/internal/lab/whatif"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/report"
)

// physicalWhatifRun makes one pair with its physical standby in the
// state, diagnoses it as 'diagnose --primary --standby' would while the
// change's During holds replay part of the window, makes the change and
// times the catch-up (labwhatif.PhysicalRun).
func physicalWhatifRun(ctx context.Context, s lab.Recipe, ro lab.RunOptions, ch labwhatif.Change, w labWhatifOptions) (model.Check, error) {
	p, load, err := lab.Up(ctx, s, ro)
	if err != nil {
		return model.Check{}, err
	}
	defer p.Close()
	defer load.Stop()
	sb := p.PhysicalStandby()
	if sb == nil {
		return model.Check{}, fmt.Errorf("%s has no physical standby", s.Name)
	}
	diag := func(ctx context.Context) (report.Report, error) {
		o := diagnose.Options{Primary: p.Pub.ConnString(lab.Database), Standby: sb.ConnString(), Duration: w.window, ProbeHz: 20, Tick: time.Second}
		rep, _, err := diagnose.RunPhysical(ctx, o)
		if err != nil {
			return rep, fmt.Errorf("diagnose: %w", err)
		}
		return rep, nil
	}
	fmt.Fprintf(ro.Log, "lab whatif: diagnosing for %s\n", w.window)
	return labwhatif.PhysicalRun(ctx, p, load, ch, string(s.Name), w.settle+w.window+time.Minute, diag, ro.Log)
}
