//go:build linux

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/lab/scenario"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/spf13/cobra"
)

type labRunOptions struct {
	labFlags
	duration time.Duration
	probeHz  float64
	noVerify bool
	diagnose bool
	diagDur  time.Duration
	noProc   bool   // --no-proc: diagnose without /proc
	save     string // --save-samples
	html     bool   // --html
	cycles   int    // --cycles: catch-ups a physical catch-up scenario times
}

func (o *labRunOptions) Validate() error {
	if o.duration < 4*time.Second {
		return Usagef("--duration %s is too short: use at least 4s", o.duration)
	}
	if o.probeHz <= 0 || o.probeHz > 100 {
		return Usagef("--probe-hz must be between 0 and 100")
	}
	if o.noProc && !o.diagnose {
		return Usagef("--no-proc applies to --diagnose: add --diagnose")
	}
	if o.cycles < 1 {
		return Usagef("--cycles must be at least 1")
	}
	if o.html && o.json {
		return Usagef("--json and --html: choose one")
	}
	return nil
}

func newLabRunCmd() *cobra.Command {
	o := &labRunOptions{}
	c := &cobra.Command{
		Use:   "run SCENARIO",
		Short: "Build a pair, drive it into a bottleneck, measure it, remove it",
		Long: `Builds a disposable pair, builds a backlog with the subscription disabled
(seed 000's method), enables it and measures for --duration: every 2 s the
LSNs (current, slot confirmed_flush, sent, flush) and /proc CPU and run-queue
delay of the walsender(s) and apply worker(s); wait events of those processes
at --probe-hz. Then it drains the backlog, checks that row count and sum(k)
match on both sides, and removes the pair.

Scenarios:
` + scenarioHelp(),
		Example: `  lagscope lab run apply-bound
  lagscope lab run network --rate 16MB/s --json
  lagscope lab run subscriber-lock --diagnose --save-samples diag.json
  lagscope lab run apply-bound --diagnose --html > apply-bound.html
  lagscope lab run walsender-starved --diagnose --no-proc   # as against a managed server
  lagscope lab run hash4-4 --busy --pg-version 16 --rows 200000 --duration 20s`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			s, ro, err := o.resolve(args[0])
			if err != nil {
				return err
			}
			ro.Duration, ro.ProbeHz, ro.Verify, ro.CatchUpCycles = o.duration, o.probeHz, !o.noVerify, o.cycles
			ro.Log = cmd.ErrOrStderr()
			var diagRec *sample.Recording
			if o.diagnose {
				ro.During = diagnoseDuring(o.diagDur, o.noProc, s.Physical, &diagRec)
			}
			res, err := lab.Run(cmd.Context(), s.Recipe, ro)
			if err != nil {
				if cmd.Context().Err() != nil {
					return &ExitError{Code: ExitInterrupted, Err: fmt.Errorf("interrupted; the lab's clusters were removed")}
				}
				return err
			}
			noteStateCheck(res, s)
			if o.diagnose && res.Standby != nil && len(res.Standby.CatchUps) > 0 {
				noteForecast(res)
			}
			if o.save != "" {
				rec := res.Recording
				if o.diagnose {
					rec = diagRec
				}
				if err := saveJSON(o.save, rec); err != nil {
					return err
				}
			}
			if o.json {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(res)
			}
			if o.html {
				return labRunHTML(cmd.OutOrStdout(), string(s.Name), res, o.probeHz)
			}
			if err := lab.RenderText(cmd.OutOrStdout(), res); err != nil {
				return err
			}
			if rep, ok := res.During.(report.Report); ok {
				fmt.Fprintln(cmd.OutOrStdout())
				return report.Text(cmd.OutOrStdout(), rep)
			}
			return nil
		},
	}
	o.bind(c)
	c.Flags().DurationVar(&o.duration, "duration", 30*time.Second, "measurement window")
	c.Flags().Float64Var(&o.probeHz, "probe-hz", 10, "wait-event probes per second (seed 000 used 4)")
	c.Flags().BoolVar(&o.html, "html", false, "print one self-contained HTML page: the lab's measurement, and the diagnosis (--diagnose) or the lab's own samples classified, with charts")
	c.Flags().BoolVar(&o.diagnose, "diagnose", false, "also run 'lagscope diagnose' against the pair while the scenario holds")
	c.Flags().DurationVar(&o.diagDur, "diagnose-duration", 10*time.Second, "sampling window of --diagnose")
	c.Flags().BoolVar(&o.noProc, "no-proc", false, "run --diagnose without /proc, as against a managed or remote server")
	c.Flags().IntVar(&o.cycles, "cycles", 1, "catch-ups to time in replay-cpu and replay-read-io (each further one builds the backlog again)")
	c.Flags().BoolVar(&o.noVerify, "no-verify", false, "skip draining and comparing the data afterwards")
	c.Flags().StringVar(&o.save, "save-samples", "", "write the raw samples (JSON) to this file: diagnose's with --diagnose, else the lab's own")
	return c
}

// diagnoseDuring runs diagnose against a lab pair, as a user would, and
// keeps its samples in *rec.
// A physical scenario's standby is diagnosed with its primary, the
// publisher.
func diagnoseDuring(d time.Duration, noProc, physical bool, rec **sample.Recording) func(context.Context, *lab.Pair) (any, error) {
	return func(ctx context.Context, p *lab.Pair) (any, error) {
		o := diagnose.Options{
			Publisher:  p.ConnString(p.Pub),
			Subscriber: p.ConnString(p.Sub),
			Duration:   d, ProbeHz: 20, Tick: time.Second, NoProc: noProc,
			AlwaysBurst: true, // the lab's samples calibrate the burst beside /proc
		}
		run := diagnose.Run
		if physical {
			o.Publisher, o.Subscriber = "", ""
			o.Primary, o.Standby = p.ConnString(p.Pub), p.PhysicalStandby().ConnString()
			run = diagnose.RunPhysical
		}
		rep, r, err := run(ctx, o)
		if err != nil {
			return nil, fmt.Errorf("diagnose: %w", err)
		}
		*rec = r
		return rep, nil
	}
}

// labRunHTML writes a lab run as an HTML page: its measurement as text
// above the charts of the diagnosis (with --diagnose) or of the lab's own
// samples classified as diagnose would.
func labRunHTML(w io.Writer, scenario string, res *lab.Result, probeHz float64) error {
	var text bytes.Buffer
	if err := lab.RenderText(&text, res); err != nil {
		return err
	}
	rep, ok := res.During.(report.Report)
	if !ok {
		if res.Recording == nil {
			return fmt.Errorf("lab run %s: no samples to draw", scenario)
		}
		rep = diagnose.Build(res.Recording, nil, probeHz)
	}
	return report.HTMLPage(w, rep, report.Preface{Title: "lab run " + scenario, Text: text.String()})
}

// noteForecast adds to the result's notes the catch-up forecast diagnose
// made beside the catch-up the lab timed (docs/whatif.md), or why there is
// none to compare.
func noteForecast(res *lab.Result) {
	f, err := scenario.CheckForecast(res)
	if err != nil {
		res.Notes = append(res.Notes, "catch-up forecast not compared: "+err.Error())
		return
	}
	res.Notes = append(res.Notes, f.String())
}

// noteStateCheck adds to the result's notes whether the lab made the
// scenario's state, by the scenario's own check (the one its integration
// test makes).
func noteStateCheck(res *lab.Result, s scenario.Scenario) {
	if s.Check == nil {
		return
	}
	problems := s.Check(res)
	if len(problems) == 0 {
		res.Notes = append(res.Notes, "the scenario's state check passed")
		return
	}
	for _, p := range problems {
		res.Notes = append(res.Notes, "the scenario's state check: "+p)
	}
}
