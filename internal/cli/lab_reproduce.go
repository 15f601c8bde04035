//go:build linux

package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/lagscope/lagscope/internal/lab/reproduce"
	"github.com/lagscope/lagscope/internal/render"
	"github.com/spf13/cobra"
)

type labReproduceOptions struct {
	serverFlags
	runs     int
	only     []string
	quick    bool
	json     bool
	markdown bool
	html     bool
}

func (o *labReproduceOptions) Validate() error {
	if o.runs < 0 || o.runs > 20 {
		return Usagef("--runs %d: use 1 to 20 (0 = the experiment's default)", o.runs)
	}
	if (o.json && o.markdown) || (o.html && (o.json || o.markdown)) {
		return Usagef("--json, --markdown and --html: choose one")
	}
	return nil
}

func newLabReproduceCmd() *cobra.Command {
	o := &labReproduceOptions{}
	c := &cobra.Command{
		Use:   "reproduce EXPERIMENT",
		Short: "Rerun a seed's lab measurements and print them beside the published figures",
		Long: `Reruns the measurements of one of the seed lab reports on this machine, with
disposable clusters, and prints each figure next to the seed's, with the
ratios the seed draws and whether they hold (absolute rates depend on the
host; ratios and shapes are what should carry over). Rows this machine cannot
reproduce faithfully are listed with the reason. Data are compared (row count
and checksum) after every drain: a mismatch fails the run (exit 1).

Experiments:
` + experimentHelp() + `
--quick shrinks tables and phases (CI uses it): effects keep their direction,
not their size. docs/reproduction.md has this machine's tables.`,
		Example: `  lagscope lab reproduce bottleneck --pg-version 16
  lagscope lab reproduce cpu-cost --runs 3 --markdown
  lagscope lab reproduce replay --quick --json
  lagscope lab reproduce bottleneck --only link --runs 3`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			e, err := reproduce.Lookup(args[0])
			if err != nil {
				return Usage(err)
			}
			srv, err := o.serverFlags.resolve()
			if err != nil {
				return err
			}
			if err := e.CheckParts(o.only); err != nil {
				return Usage(err)
			}
			t, err := e.Run(cmd.Context(), reproduce.Options{Bin: srv.bin, PGBench: srv.pgbench, PubCPUs: srv.pub, SubCPUs: srv.sub,
				Runs: o.runs, Quick: o.quick, Only: o.only, Log: cmd.ErrOrStderr()})
			if err != nil {
				if cmd.Context().Err() != nil {
					return &ExitError{Code: ExitInterrupted, Err: fmt.Errorf("interrupted; the lab's clusters were removed")}
				}
				return err
			}
			t.Command = "lagscope " + strings.Join(os.Args[1:], " ")
			out := cmd.OutOrStdout()
			switch {
			case o.json:
				err = render.IndentedJSON(out, t)
			case o.markdown:
				err = reproduce.Markdown(out, t)
			case o.html:
				err = reproduce.HTML(out, t)
			default:
				err = reproduce.Text(out, t)
			}
			if err != nil {
				return err
			}
			if len(t.Failures) > 0 {
				return fmt.Errorf("%d run(s) failed their data check: see FAILED above", len(t.Failures))
			}
			return nil
		},
	}
	o.serverFlags.bind(c, "the publisher (or primary) and its pgbench", "the subscriber (or standby)")
	fl := c.Flags()
	fl.IntVar(&o.runs, "runs", 0, "repetitions of each case (default: 2 for bottleneck, as the seed's a/b rounds; 3 otherwise)")
	fl.StringSliceVar(&o.only, "only", nil, "run only these parts (bottleneck: layouts, link, bigtxn, ri)")
	fl.BoolVar(&o.quick, "quick", false, "small tables and short phases: directions only (what CI runs)")
	fl.BoolVar(&o.json, "json", false, "print one JSON object")
	fl.BoolVar(&o.markdown, "markdown", false, "print markdown tables (docs/reproduction.md)")
	fl.BoolVar(&o.html, "html", false, "print one self-contained HTML page: the tables, and each section's ratios as bars beside the seed's")
	return c
}

func experimentHelp() string {
	var b strings.Builder
	for _, e := range reproduce.Experiments {
		fmt.Fprintf(&b, "  %-11s %s\n", e.Name, e.Summary)
	}
	return b.String()
}
