package cli

import (
	"errors"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/lagscope/lagscope/internal/monitor"
	"github.com/lagscope/lagscope/internal/watch"
)

type watchOptions struct {
	watch.Options
	plain bool
}

func newWatchCmd() *cobra.Command {
	o := &watchOptions{}
	m := &o.Monitor
	m.Pair = "default"
	m.Diagnose.Tick = time.Second
	c := &cobra.Command{
		Use:   "watch",
		Short: "A live view of one pair: lag split, rates, the verdict and its evidence, the stages",
		Long: `Watches one publisher (and its subscriber) like 'lagscope exporter' does and
draws, per path, refreshed every second:

  - the verdict over the last --window, re-evaluated every --step, with its
    confidence, headline and first evidence, and the stage table;
  - the lag split as a bar: not yet sent, sent but not flushed, flushed but
    not confirmed;
  - generated, decoded and confirmed WAL rates with sparklines (one second each).

Keys: q quit, p pause the display, s save the window's samples to a file that
'lagscope diagnose --from-samples' re-classifies, ? help.

A physical standby (--primary and/or --standby) shows, per standby and step,
its verdict, the WAL not replayed split per stage (not sent, in flight,
received not replayed; 0 when everything is replayed, whatever
pg_last_xact_replay_timestamp() says), its WAL rates and the catch-up
forecast.

When stdout is not a terminal (or with --plain) it prints one line per path
and step instead, without colour: for logs and scripts.

It only observes: the same read-only sessions and probes as diagnose; a role
with pg_monitor is enough. Exit codes: 0 quit (q, Ctrl-C), 2 usage error.`,
		Example: `  lagscope watch --publisher 'host=pub dbname=app user=monitor' --subscriber 'host=sub dbname=app user=monitor'
  lagscope watch --publisher 'host=pub dbname=app' --window 1m --step 15s
  lagscope watch --publisher ... --subscriber ... --plain | tee watch.log
  lagscope watch --primary 'host=db1 dbname=postgres' --standby 'host=db1r dbname=postgres' --plain`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if m.Diagnose.Publisher == "" && !m.Diagnose.Physical() {
				return Usagef("--publisher is required (a connection string such as 'host=db1 dbname=app' or postgres://db1/app), or --primary and/or --standby for a physical standby")
			}
			if err := m.Validate(); err != nil {
				return Usage(err)
			}
			o.Out, o.In = cmd.OutOrStdout(), cmd.InOrStdin()
			o.Terminal = !o.plain && isTerminal(o.Out)
			if err := watch.Run(cmd.Context(), o.Options); err != nil {
				if errors.Is(err, watch.ErrNeverReached) {
					return Usage(err)
				}
				return &ExitError{Code: ExitFailure, Err: err}
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&m.Diagnose.Publisher, "publisher", "", "publisher connection string (keyword/value or URI)")
	f.StringVar(&m.Diagnose.Subscriber, "subscriber", "", "subscriber connection string; omit for consumers that are not PostgreSQL subscribers")
	f.StringVar(&m.Diagnose.Primary, "primary", "", "a physical standby's primary (connection string); alone, every standby it feeds")
	f.StringVar(&m.Diagnose.Standby, "standby", "", "a physical standby (connection string): its WAL receiver and replay")
	f.StringVar(&m.Diagnose.Slot, "slot", "", "watch only this slot")
	f.StringVar(&m.Diagnose.Subscription, "subscription", "", "watch only this subscription's slot")
	f.BoolVar(&m.Diagnose.KeepQueryLiterals, "keep-query-literals", false, "keep the constants in the captured query text of lock blockers and open transactions (by default they are replaced with $1, $2, ... before anything is shown or saved; passwords are hidden either way)")
	f.BoolVar(&m.Diagnose.NoProc, "no-proc", false, "do not read /proc (servers on another host or in a container)")
	f.Float64Var(&m.Diagnose.ProbeHz, "probe-hz", 0, "wait-event probes per second per server (default: 10 where this host's /proc shows the server's processes, which give their CPU and run-queue figures; 20 where it does not)")
	f.DurationVar(&m.Window, "window", monitor.DefaultWindow, "how much of the recent past each verdict weighs")
	f.DurationVar(&m.Step, "step", 5*time.Second, "how often the verdict is re-evaluated (at least 2s, at most --window)")
	f.BoolVar(&o.plain, "plain", false, "print one line per path and step, even on a terminal")
	f.StringVar(&o.SaveDir, "save-dir", ".", "where 's' saves the window's samples")
	return c
}

// isTerminal says whether w is a character device (a terminal).
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
