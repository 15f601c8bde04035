package cli

import (
	"errors"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/recorder"
	"github.com/lagscope/lagscope/internal/render"
)

// recordedWindow is diagnose's window of a recording: --from-recording
// DIR with --at TIME [--window D] or --between FROM,TO.
type recordedWindow struct {
	dir, at, between string
	window           time.Duration
	from, to         time.Time
}

func (w *recordedWindow) flags(f *pflag.FlagSet) {
	f.StringVar(&w.dir, "from-recording", "", "classify a window of a recording made by 'lagscope record' or 'lagscope exporter --record' (its directory), without servers: with --at or --between")
	f.StringVar(&w.at, "at", "", "with --from-recording: the window's middle (03:00 is the last 03:00 before now, local time; or 2026-12-05T03:00:00Z)")
	f.StringVar(&w.between, "between", "", "with --from-recording: the window FROM,TO (03:00,03:20)")
	f.DurationVar(&w.window, "window", 30*time.Second, "with --at: the window's length")
}

// Validate reads the window's times.
func (w *recordedWindow) Validate() error {
	now := time.Now()
	switch {
	case (w.at == "") == (w.between == ""):
		return Usagef("--from-recording needs the window: --at TIME (with --window, default 30s) or --between FROM,TO")
	case w.at != "":
		if w.window <= 0 {
			return Usagef("--window must be positive")
		}
		at, err := recorder.ParseWhen(w.at, now, time.Local)
		if err != nil {
			return Usagef("--at: %v", err)
		}
		w.from, w.to = at.Add(-w.window/2), at.Add(w.window-w.window/2)
	default:
		var err error
		if w.from, w.to, err = recorder.ParseBetween(w.between, now, time.Local); err != nil {
			return Usage(err)
		}
	}
	return nil
}

// diagnoseFromRecording classifies the window of the recording.
func diagnoseFromRecording(cmd *cobra.Command, o *diagnoseOptions) error {
	w := o.recorded
	dir, err := recorder.Resolve(w.dir)
	if err != nil {
		return Usagef("--from-recording: %v", err)
	}
	rec, err := recorder.Read(dir, w.from, w.to)
	if err != nil {
		return Usagef("--from-recording: %v", err)
	}
	rep, err := diagnose.FromRecording(rec, o.Slot, o.Subscription, o.NoProc, o.Link)
	if err != nil {
		if errors.Is(err, diagnose.ErrNothingToDiagnose) {
			return Usagef("--from-recording %s, %s to %s: %v", dir, w.from.Format(time.RFC3339), w.to.Format(time.RFC3339), err)
		}
		return Usagef("--from-recording %s: %v", dir, err)
	}
	rep.RebuiltFrom = &render.Source{File: dir, RecordedAt: rep.Start}
	return renderDiagnosis(cmd, rep, o.format)
}
