package cli

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/lagscope/lagscope/internal/lab/proxy"
	"github.com/lagscope/lagscope/internal/units"
)

// benchOptions are the flags of 'lagscope proxy bench'.
type benchOptions struct {
	rate     units.ByteRate
	rates    []string
	duration time.Duration
	repeat   int
	json     bool
	// changed records which flags the user gave, filled in before Validate.
	changed func(name string) bool
}

func (o *benchOptions) bind(c *cobra.Command) {
	fl := c.Flags()
	fl.Var(&o.rate, "rate", "the one rate to measure: 500kB/s, 8MB/s, 100Mbit/s, 8MiB/s or unlimited (the default)")
	fl.StringSliceVar(&o.rates, "rates", nil, "several rates in turn, e.g. 1MB/s,8MB/s,unlimited")
	fl.DurationVar(&o.duration, "duration", 10*time.Second, "measured window of each run")
	fl.IntVar(&o.repeat, "repeat", 1, "runs per rate; the report shows the median and the spread")
	fl.BoolVar(&o.json, "json", false, "print the report as JSON")
}

// Validate checks the flags; errors are usage errors.
func (o *benchOptions) Validate() error {
	if o.duration <= 0 {
		return Usagef("--duration %s must be positive, e.g. 10s", o.duration)
	}
	if o.repeat < 1 {
		return Usagef("--repeat %d must be at least 1", o.repeat)
	}
	if o.changed != nil && o.changed("rate") && len(o.rates) > 0 {
		return Usagef("give either --rate or --rates, not both")
	}
	_, err := o.rateList()
	return err
}

// rateList lists the rates to measure: --rates, else --rate.
func (o *benchOptions) rateList() ([]units.ByteRate, error) {
	if len(o.rates) == 0 {
		return []units.ByteRate{o.rate}, nil
	}
	var out []units.ByteRate
	for _, s := range o.rates {
		r, err := units.ParseByteRate(s)
		if err != nil {
			return nil, Usagef("--rates: %v", err)
		}
		out = append(out, r)
	}
	return out, nil
}

func newProxyBenchCmd() *cobra.Command {
	o := &benchOptions{}
	c := &cobra.Command{
		Use:   "bench [--rate RATE | --rates R1,R2,...] [--repeat N]",
		Short: "Measure how well the proxy holds a rate on this machine (127.0.0.1 only)",
		Long: `bench measures the relay on this machine; nothing leaves 127.0.0.1: a sink
server, a proxy in front of it and a client pushing data for --duration. With a
rate it prints the target, the measured rate and the error; unlimited it also
measures a direct connection and prints the ratio. With --repeat or several
--rates it prints a table of medians and spreads, and the CPUs other work kept
busy meanwhile (a loaded machine measures a slower relay). See docs/proxy.md.`,
		Example: `  # How close does the proxy keep to 8MB/s on this machine?
  lagscope proxy bench --rate 8MB/s

  # What does the relay cost unlimited, compared with a direct connection?
  lagscope proxy bench --repeat 3

  # A table over several rates, three 10 s runs each, as JSON
  lagscope proxy bench --rates 1MB/s,8MB/s,100MB/s,unlimited --repeat 3 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.changed = cmd.Flags().Changed
			if err := o.Validate(); err != nil {
				return err
			}
			return runProxyBench(cmd, o)
		},
	}
	o.bind(c)
	return c
}

// runProxyBench measures every rate, --repeat times each, with a progress
// line per run on stderr.
func runProxyBench(cmd *cobra.Command, o *benchOptions) error {
	ctx := cmd.Context()
	rates, err := o.rateList()
	if err != nil {
		return err
	}
	log := cmd.ErrOrStderr()
	rep, err := proxy.BenchRates(ctx, rates, o.repeat, o.duration, func(r units.ByteRate, i int, run proxy.BenchRun) {
		fmt.Fprintf(log, "bench: %s run %d/%d: %s\n", r, i, o.repeat, run)
	})
	if err != nil {
		if ctx.Err() != nil {
			return &ExitError{Code: ExitInterrupted, Err: fmt.Errorf("interrupted during the bench")}
		}
		return err
	}
	if o.json {
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return proxy.RenderBench(cmd.OutOrStdout(), rep)
}
