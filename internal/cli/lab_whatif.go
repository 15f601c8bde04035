//go:build linux

package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/lab"
	labwhatif "github.com/lagscope/lagscope/internal/lab/whatif"
	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/render"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sleep"
	"github.com/spf13/cobra"
)

// labWhatifOptions are lab whatif's own flags.
type labWhatifOptions struct {
	change   string
	window   time.Duration
	settle   time.Duration
	runs     int
	duration time.Duration
	html     bool
}

// Validate checks the flags.
func (o labWhatifOptions) Validate() error {
	if o.change == "" {
		return Usagef("--change is required: one of %s", strings.Join(labwhatif.ChangeNames(), ", "))
	}
	if o.window < 4*time.Second {
		return Usagef("--window %s: use at least 4s", o.window)
	}
	if o.runs < 1 || o.runs > 20 {
		return Usagef("--runs %d: use 1 to 20", o.runs)
	}
	return nil
}

func newLabWhatifCmd() *cobra.Command {
	o := &labFlags{}
	w := labWhatifOptions{}
	c := &cobra.Command{
		Use:   "whatif [SCENARIO] --change CHANGE",
		Short: "Check a remedy's prediction: diagnose a state, make the change, measure again",
		Long: `Builds a pair in the scenario's state (by default the one the change is
measured from), diagnoses it for --window as 'lagscope diagnose' would, takes
the report's prediction for the change (its "what if" line) and makes the
change on the pair while the backlog drains. From then it reads the slot's
progress every 100 ms until the backlog is gone or --settle + --window pass
(the measured drain), and diagnoses a second --window after --settle (which
stage limits now). It prints predicted beside measured with their ratio,
per run and as the median and spread over --runs; the pair is removed after
each run. The models and this machine's results: docs/whatif.md.

Changes:
` + changeHelp(),
		Example: `  lagscope lab whatif --change link=2x --runs 3
  lagscope lab whatif --change link=8MB/s --rate 3MB/s
  lagscope lab whatif apply-bound --change drop-extra-indexes --pg-version 16 --json
  lagscope lab whatif --change unstarve-walsender --runs 3 --html > unstarve.html`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := w.Validate(); err != nil {
				return err
			}
			if w.html && o.json {
				return Usagef("--json and --html: choose one")
			}
			name := ""
			if len(args) == 1 {
				name = args[0]
			}
			ch, scen, err := labwhatif.LookupChange(w.change, name)
			if err != nil {
				return Usage(err)
			}
			s, ro, err := o.resolve(scen)
			if err != nil {
				return err
			}
			if ch.LinkTo > 0 && ch.LinkTo <= ro.Pair.LinkRate {
				return Usagef("--change %s is not faster than the pair's link, --rate %s: give a higher rate or a lower --rate", w.change, ro.Pair.LinkRate)
			}
			s.Recipe = ch.For(s.Recipe)
			ro.Duration, ro.Log = w.duration, cmd.ErrOrStderr()
			var runs []model.Check
			var failed []string
			for i := range w.runs {
				fmt.Fprintf(cmd.ErrOrStderr(), "lab whatif: run %d of %d: %s, then %s\n", i+1, w.runs, s.Name, ch.Name)
				run := whatifRun
				if ch.Physical {
					run = physicalWhatifRun
				}
				c, err := run(cmd.Context(), s.Recipe, ro, ch, w)
				if err != nil {
					if cmd.Context().Err() != nil {
						return &ExitError{Code: ExitInterrupted, Err: fmt.Errorf("interrupted; the lab's clusters were removed")}
					}
					// A run whose state came out otherwise (a shared
					// machine starves a process now and then) is
					// reported; the others still count.
					failed = append(failed, fmt.Sprintf("run %d: %v", i+1, err))
					fmt.Fprintf(cmd.ErrOrStderr(), "lab whatif: run %d: %v\n", i+1, err)
					continue
				}
				runs = append(runs, c)
			}
			cs := model.Summarise(runs)
			cs.Failed = failed
			err = nil
			switch {
			case o.json:
				err = render.IndentedJSON(cmd.OutOrStdout(), cs)
			case w.html:
				err = report.WhatifHTML(cmd.OutOrStdout(), cs, "lagscope "+strings.Join(os.Args[1:], " "))
			default:
				err = cs.Text(cmd.OutOrStdout())
			}
			if err == nil && len(failed) > 0 {
				err = &ExitError{Code: ExitFailure, Err: fmt.Errorf("%d of %d run(s) gave no measurement: %s", len(failed), w.runs, strings.Join(failed, "; "))}
			}
			return err
		},
	}
	o.bind(c)
	fl := c.Flags()
	fl.StringVar(&w.change, "change", "", "the change to make: "+strings.Join(labwhatif.ChangeNames(), ", "))
	fl.DurationVar(&w.window, "window", 10*time.Second, "each diagnose window (before and after the change)")
	fl.DurationVar(&w.settle, "settle", 2*time.Second, "wait after the change before the second window")
	fl.IntVar(&w.runs, "runs", 1, "runs, each on a new pair")
	fl.BoolVar(&w.html, "html", false, "print one self-contained HTML page: each run's drain today, predicted and measured as bars, and the runs' table")
	fl.DurationVar(&w.duration, "duration", 40*time.Second, "sizes the backlog as 'lab run' would for this window: it must outlast both windows")
	return c
}

// whatifRun makes one pair, diagnoses it, makes the change and measures.
func whatifRun(ctx context.Context, s lab.Recipe, ro lab.RunOptions, ch labwhatif.Change, w labWhatifOptions) (model.Check, error) {
	p, load, err := lab.Up(ctx, s, ro)
	if err != nil {
		return model.Check{}, err
	}
	defer p.Close()
	defer load.Stop()
	diag := func() (report.Report, error) {
		o := diagnose.Options{Publisher: p.ConnString(p.Pub), Subscriber: p.ConnString(p.Sub),
			Duration: w.window, ProbeHz: 20, Tick: time.Second}
		if ch.LinkTo > 0 {
			// The operator's knowledge of the link: its rate today and
			// the faster one.
			o.Link = model.LinkRates{Now: p.Opts.LinkRate, To: ch.LinkTo}
		}
		rep, _, err := diagnose.Run(ctx, o)
		if err != nil {
			return rep, fmt.Errorf("diagnose: %w", err)
		}
		if len(rep.Paths) == 0 {
			return rep, fmt.Errorf("diagnose found no path")
		}
		return rep, nil
	}
	fmt.Fprintf(ro.Log, "lab whatif: diagnosing for %s\n", w.window)
	before, err := diag()
	if err != nil {
		return model.Check{}, err
	}
	p1 := before.Paths[0]
	var pred *model.Prediction
	for i := range p1.WhatIf {
		if p1.WhatIf[i].Change == ch.Name {
			pred = &p1.WhatIf[i]
		}
	}
	// The control, and a change the report offers without a figure, are
	// measured against today's drain (their ratio is the change's factor).
	today := p1.DrainRate()
	switch {
	case ch.Name == labwhatif.Control.Name:
		pred = &model.Prediction{Change: ch.Name, Remedy: "nothing changed", Drain: today, Speedup: 1, Model: "today's drain: nothing changes"}
	case pred != nil && pred.Drain <= 0 && pred.NotPredicted != "":
		pred = &model.Prediction{Change: ch.Name, Remedy: pred.Remedy, Drain: today, Speedup: 1,
			Model: "not predicted (" + pred.NotPredicted + "): measured against today's drain"}
	}
	if pred == nil || pred.Drain <= 0 {
		why := "it offered none"
		if pred != nil {
			why = "not predicted: " + pred.NotPredicted
		}
		return model.Check{}, fmt.Errorf("the report (verdict %s) has no prediction for %s: %s", p1.Name, ch.Name, why)
	}
	fmt.Fprintf(ro.Log, "lab whatif: predicted %s; making the change: %s\n", pred, ch.Summary)
	if err := ch.Apply(ctx, p, load); err != nil {
		return model.Check{}, fmt.Errorf("%s: %w", ch.Name, err)
	}
	// The drain is read from the change on, every 100 ms, until the backlog
	// is gone or the second window ends (a FULL table's small backlog
	// drains within a second of its index); the second diagnose, after
	// --settle, says which stage limits then.
	fmt.Fprintf(ro.Log, "lab whatif: measuring for %s\n", w.settle+w.window)
	var drained lab.Drained
	var derr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		drained, derr = p.Drain(ctx, "lab_sub", w.settle+w.window)
	}()
	if err := sleep.For(ctx, w.settle); err != nil {
		<-done
		return model.Check{}, err
	}
	after, err := diag()
	<-done
	if err != nil {
		return model.Check{}, err
	}
	if derr != nil {
		return model.Check{}, derr
	}
	p2 := after.Paths[0]
	c := model.NewCheck(string(s.Name), before.Publisher.Version, p1.Name, p2.Name, today, *pred, drained.Rate, drained.RanOut)
	c.DrainedS = drained.Seconds
	c.StagesBefore, c.StagesAfter = model.Utilisations(p1.Stages), model.Utilisations(p2.Stages)
	c.RowsBefore, c.RowsAfter = rowsPerSecond(p1.Tables), rowsPerSecond(p2.Tables)
	c.ApplyCostBefore, c.ApplyCostAfter = applyCost(p1), applyCost(p2)
	return c, nil
}

// applyCost is the apply worker's time per MB of WAL the subscriber wrote
// in the path's window, ms (0 when unknown).
func applyCost(p report.Path) float64 {
	for _, s := range p.Stages {
		if s.Name == model.StageApply {
			return 1e9 * model.ApplyCostOf(s, p.DrainRate(), p.SubWALPerSent)
		}
	}
	return 0
}

// changeHelp lists the changes for --help.
func changeHelp() string {
	var b strings.Builder
	for _, c := range labwhatif.AllChanges() {
		fmt.Fprintf(&b, "  %-20s %s (from %s)\n", c.Name, c.Summary, strings.Join(labwhatif.ScenarioNames(c.Scenarios), ", "))
	}
	return b.String()
}

// rowsPerSecond is the rows the tables changed per second.
func rowsPerSecond(tables []measure.TableWork) float64 {
	var r float64
	for _, t := range tables {
		r += t.PerSecond(t.Changed())
	}
	return r
}
