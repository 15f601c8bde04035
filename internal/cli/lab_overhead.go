//go:build linux

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/spf13/cobra"
)

func newLabOverheadCmd() *cobra.Command {
	o := &labFlags{}
	var duration time.Duration
	var probeHz float64
	var runs int
	c := &cobra.Command{
		Use:   "overhead [SCENARIO]",
		Short: "Measure what 'lagscope diagnose' costs the servers it observes",
		Long: `Brings up a pair in the scenario's state (default caught-up: a light load),
runs 'lagscope diagnose' against it --runs times and measures the CPU used by
lagscope's own backends on each server (application_name = lagscope, read from
/proc) and by the lagscope process, as shares of one core. docs/log/performance.md
holds the figures measured here.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := string(lab.ScenarioName("caught-up")) // the default scenario
			if len(args) == 1 {
				name = args[0]
			}
			if duration < 2*time.Second || runs < 1 {
				return Usagef("--duration must be at least 2s and --runs at least 1")
			}
			s, ro, err := o.resolve(name)
			if err != nil {
				return err
			}
			ro.Duration = duration
			ro.Log = cmd.ErrOrStderr()
			p, load, err := lab.Up(cmd.Context(), s.Recipe, ro)
			if err != nil {
				return err
			}
			defer p.Close()
			defer load.Stop()
			var all []lab.Overhead
			for i := 0; i < runs; i++ {
				ov, err := lab.MeasureOverhead(cmd.Context(), p, func(ctx context.Context) error {
					_, _, err := diagnose.Run(ctx, diagnose.Options{Publisher: p.Pub.ConnString(lab.Database),
						Subscriber: p.Sub.ConnString(lab.Database), Duration: duration, ProbeHz: probeHz, Tick: time.Second})
					return err
				})
				if err != nil {
					return err
				}
				all = append(all, ov)
				if !o.json {
					fmt.Fprintf(cmd.OutOrStdout(), "run %d at %s %s\n", i+1, rateNote(probeHz), ov)
				}
			}
			if o.json {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(map[string]any{"scenario": name, "probe_hz": probeHz, "runs": all})
			}
			return nil
		},
	}
	o.bind(c)
	c.Flags().DurationVar(&duration, "duration", 30*time.Second, "diagnose sampling window per run")
	c.Flags().Float64Var(&probeHz, "probe-hz", 0, "diagnose wait-event probe rate (default: diagnose's own, 10 Hz where /proc shows the server's processes)")
	c.Flags().IntVar(&runs, "runs", 3, "how many diagnose runs to measure")
	return c
}

// rateNote names the probe rate a run used: the one asked for, or
// diagnose's default.
func rateNote(hz float64) string {
	if hz > 0 {
		return fmt.Sprintf("%g Hz", hz)
	}
	return fmt.Sprintf("%d Hz (diagnose's default with /proc)", sample.ProcProbeHz)
}
