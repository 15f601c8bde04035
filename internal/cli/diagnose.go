package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/render"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/safefile"
	"github.com/spf13/cobra"
)

type diagnoseOptions struct {
	diagnose.Options
	format      string
	json        bool
	save        string
	fromSamples string
	recorded    recordedWindow
}

// Validate checks flags and picks the output format.
func (o *diagnoseOptions) Validate() error {
	var err error
	if o.format, err = outputFormat(o.format, o.json); err != nil {
		return err
	}
	if o.recorded.dir != "" {
		if o.Publisher != "" || o.Subscriber != "" || o.Primary != "" || o.Standby != "" || o.save != "" || o.fromSamples != "" {
			return Usagef("--from-recording classifies a window of a recording without servers: drop --publisher, --subscriber, --primary, --standby, --save-samples and --from-samples")
		}
		if err := diagnose.ValidateLink(o.Link); err != nil {
			return Usage(err)
		}
		return o.recorded.Validate()
	}
	if o.recorded.at != "" || o.recorded.between != "" {
		return Usagef("--at and --between pick a window of a recording: give --from-recording DIR")
	}
	if o.fromSamples != "" {
		if o.Publisher != "" || o.Subscriber != "" || o.Primary != "" || o.Standby != "" || o.save != "" {
			return Usagef("--from-samples re-classifies a saved recording without servers: drop --publisher, --subscriber, --primary, --standby and --save-samples")
		}
		if err := diagnose.ValidateLink(o.Link); err != nil {
			return Usage(err)
		}
		return nil
	}
	if o.Publisher == "" && !o.Physical() {
		// libpq convention: PG* variables alone describe the publisher.
		if os.Getenv("PGHOST") != "" || os.Getenv("PGSERVICE") != "" || os.Getenv("PGDATABASE") != "" {
			o.Publisher = " "
		}
	}
	if err := o.Options.Validate(); err != nil {
		return Usage(err)
	}
	if o.save != "" {
		if err := checkWritable("--save-samples", o.save); err != nil {
			return err
		}
	}
	return nil
}

func newDiagnoseCmd() *cobra.Command {
	o := &diagnoseOptions{}
	c := &cobra.Command{
		Use:   "diagnose",
		Short: "Name the bottleneck of a live logical replication pair or physical standby, with its evidence",
		Long: `Samples a publisher (and its subscriber) for --duration and names, for each
logical slot, the stage that limits the drain: the subscriber's apply worker,
a starved walsender, decoding CPU, WAL reads, the network, disk or lock waits
on the subscriber, or a stalled subscription - with the numbers that decided
it, where the lag sits, and what will and will not help.

What it reads: positions and counters every second; wait events of the
walsenders and apply workers at --probe-hz (10 a second where /proc shows
the server's processes, 20 where not; or from the pg_wait_sampling
extension's history, at its 100 Hz, where it is installed and loaded); CPU
and run-queue delay of those processes from /proc when the servers run on this
host (checked by process start time). Where /proc cannot be read (managed
services, containers, remote hosts; --no-proc) it measures each server's CPUs
from inside: a burst of fixed work timed every 3 s (about 3 ms of a CPU a
second), and how late its sleeps wake - what tells a CPU-starved walsender from
a slow link there. It only observes: read-only sessions,
application_name=lagscope, short statement timeouts. A role with pg_monitor is
enough on both sides.

A physical standby: --primary and --standby instead (either alone where it can
say something). Its stages are the primary's walsender, the link, the standby's
WAL receiver and its startup process, which replays all the WAL alone: the
verdict names which limits (replay on a full core or starved of one, replay
waiting on data file reads, a standby query holding replay - its pid, user,
start and when max_standby_streaming_delay cancels it -, a pause, a
recovery_min_apply_delay, the WAL receiver's writes, the link, the walsender,
a synchronous standby holding the primary's commits, or caught up). The lag is
the WAL behind per stage, in bytes and in time from the WAL rate: 0 when
everything received is replayed, whatever now() -
pg_last_xact_replay_timestamp() says on an idle primary; the catch-up forecast
is that WAL over (replay rate - WAL rate). --standby alone judges the WAL
receiver and replay; --primary alone lists every standby it feeds, with its
positions, and judges what the primary sees. --standby must point at a server
in recovery, --primary at one that is not.

A cascade (a standby fed by another standby): give --primary the real primary
and --standby the middle standby, the one that feeds the cascade. Its own
walsenders (its pg_stat_replication) give each cascaded standby's positions:
the report lists each one's lag behind the real primary, hop by hop in bytes
and time (primary -> middle: the WAL the middle has not received; middle ->
cascade: what the cascade has not replayed of what the middle received, which
is what a cascading walsender sends, replayed or not), and names the hop that
limits and its stage (on the first hop the one the verdict names). The
cascaded standby's own processes are not sampled: --standby on it alone judges
its WAL receiver and replay.

Connection strings are libpq keyword/value strings or URIs; PG* environment
variables and ~/.pgpass apply. Passwords never appear in the output.

` + exitCodesHelp(),
		Example: `  lagscope diagnose --publisher 'host=pub dbname=app user=monitor' --subscriber 'host=sub dbname=app user=monitor'
  lagscope diagnose --publisher postgres://monitor@pub/app --duration 30s --format markdown
  lagscope diagnose --publisher 'host=pub dbname=app' --json > run.json && lagscope report --input run.json
  lagscope diagnose --publisher ... --subscriber ... --format html > report.html   # charts, opens offline
  lagscope diagnose --publisher ... --subscriber ... --save-samples run-samples.json
  lagscope diagnose --from-samples run-samples.json --format markdown   # re-classify offline
  lagscope diagnose --from-samples run-samples.json --no-proc            # as if /proc had been out of reach
  lagscope diagnose --primary 'host=db1 user=monitor' --standby 'host=db2 user=monitor'   # a physical standby
  lagscope diagnose --standby 'host=db2 user=monitor' --duration 30s                       # the standby alone
  lagscope diagnose --primary 'host=db1 user=monitor' --standby 'host=db2 user=monitor'   # db2 feeding db3: db3 behind db1, per hop
  lagscope diagnose --primary 'host=db1 user=monitor' --format markdown                    # every standby db1 feeds
  lagscope diagnose --from-recording /var/lib/lagscope/rec --at 03:00 --window 1m          # a past window of 'lagscope record'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			if o.fromSamples != "" {
				return diagnoseFromSamples(cmd, o)
			}
			if o.recorded.dir != "" {
				return diagnoseFromRecording(cmd, o)
			}
			run := diagnose.Run
			if o.Physical() {
				run = diagnose.RunPhysical
			}
			rep, rec, err := run(cmd.Context(), o.Options)
			if err != nil {
				if cmd.Context().Err() != nil {
					return &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted before enough samples were taken")}
				}
				return runError(err)
			}
			interrupted := cmd.Context().Err() != nil
			if interrupted {
				// Ctrl-C inside the window: what was sampled is reported (and
				// saved), marked as cut short.
				rep.Notes = append(rep.Notes, fmt.Sprintf("cut short by an interrupt after %.0f s of the %s window: the figures cover what was sampled", rep.WindowS, o.Duration))
			}
			if o.save != "" {
				if err := saveJSON(o.save, rec); err != nil {
					return err
				}
			}
			err = renderDiagnosis(cmd, rep, o.format)
			if interrupted && (err == nil || ExitCode(err) == ExitFinding) {
				return &ExitError{Code: ExitInterrupted, Err: errSilent}
			}
			return err
		},
	}
	f := c.Flags()
	f.StringVar(&o.Publisher, "publisher", "", "publisher connection string (keyword/value or URI)")
	f.StringVar(&o.Subscriber, "subscriber", "", "subscriber connection string; omit for consumers that are not PostgreSQL subscribers")
	f.StringVar(&o.Primary, "primary", "", "a physical standby's primary (connection string, keyword/value or URI): alone, every standby it feeds")
	f.StringVar(&o.Standby, "standby", "", "a physical standby (connection string; a server in recovery): alone, its WAL receiver and replay; a middle standby: also the cascaded standbys it feeds, per hop")
	f.DurationVar(&o.Duration, "duration", 10*time.Second, "how long to sample")
	f.Float64Var(&o.ProbeHz, "probe-hz", 0, "wait-event probes per second per server (default: 10 where this host's /proc shows the server's processes, which give their CPU and run-queue figures; 20 where it does not)")
	f.StringVar(&o.Slot, "slot", "", "diagnose only this slot")
	f.StringVar(&o.Subscription, "subscription", "", "diagnose only this subscription's slot")
	f.BoolVar(&o.NoProc, "no-proc", false, "do not read /proc (as for servers on another host or in a container): CPU contention is then measured from inside the servers; with --from-samples, drop the recording's /proc figures")
	f.BoolVar(&o.NoWaitSampling, "no-wait-sampling", false, "probe wait events with lagscope's own statements even where the pg_wait_sampling extension's history is readable")
	f.BoolVar(&o.KeepQueryLiterals, "keep-query-literals", false, "keep the constants in the captured query text of lock blockers and open transactions (by default they are replaced with $1, $2, ... before anything is shown or saved; passwords are hidden either way)")
	f.StringVar(&o.format, "format", "", "output format: text (default), markdown, json or html (one self-contained page with charts)")
	f.BoolVar(&o.json, "json", false, "same as --format json")
	f.StringVar(&o.save, "save-samples", "", "also write the raw samples (JSON) to this file")
	f.StringVar(&o.fromSamples, "from-samples", "", "re-classify samples saved with --save-samples, without servers")
	o.recorded.flags(f)
	f.Var(&o.Link.Now, "link-rate", "the link's rate today (100Mbit/s, 12MB/s), for --what-if-link: lagscope measures the WAL it carries, not the bytes on the wire")
	f.Var(&o.Link.To, "what-if-link", "also predict the drain with a link of this rate where the link limits (with --link-rate): 1Gbit/s, 125MB/s")
	o.Tick = time.Second
	return c
}

// diagnoseFromSamples re-classifies a saved recording.
func diagnoseFromSamples(cmd *cobra.Command, o *diagnoseOptions) error {
	f, err := os.Open(o.fromSamples)
	if err != nil {
		return Usagef("--from-samples: %v", err)
	}
	defer f.Close()
	rep, err := diagnose.FromSamples(f, o.Slot, o.Subscription, o.NoProc, o.Link)
	if err != nil {
		return Usagef("--from-samples %s: %v", o.fromSamples, err)
	}
	rep.RebuiltFrom = &render.Source{File: o.fromSamples, RecordedAt: rep.Start}
	return renderDiagnosis(cmd, rep, o.format)
}

// renderDiagnosis writes the report and turns a path that is not caught
// up into exit code 1.
func renderDiagnosis(cmd *cobra.Command, rep report.Report, format string) error {
	if err := report.Render(cmd.OutOrStdout(), rep, format); err != nil {
		return err
	}
	if rep.Finding() {
		return &ExitError{Code: ExitFinding, Err: errSilent}
	}
	return nil
}

// errSilent is an error whose message is not printed (the output said it all).
var errSilent = errors.New("")

// saveJSON writes v as indented JSON to path, 0600 and renamed into place
// (safefile).
func saveJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	if err := safefile.WriteFile(path, b); err != nil {
		return fmt.Errorf("save samples: %w", err)
	}
	return nil
}

func newReportCmd() *cobra.Command {
	var input, format string
	var asJSON bool
	c := &cobra.Command{
		Use:   "report [FILE | --input FILE]",
		Short: "Re-render a saved diagnose report (JSON) as text, markdown, JSON or HTML",
		Long: `Re-renders a report written by 'lagscope diagnose --json', or the diagnosis
in a 'lagscope lab run --diagnose --json' result, in another format. FILE "-"
(or none given, with a pipe on standard input) reads standard input. A check
report is rendered by 'lagscope check --input FILE', saved samples are
classified by 'lagscope diagnose --from-samples FILE'.`,
		Example: `  lagscope diagnose --publisher ... --json > run.json
  lagscope report run.json --format markdown
  lagscope diagnose --publisher ... --json | lagscope report --format html > run.html`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if input != "" {
					return Usagef("give the file once: as an argument or with --input")
				}
				input = args[0]
			}
			var err error
			if format, err = outputFormat(format, asJSON); err != nil {
				return err
			}
			var rd io.Reader = cmd.InOrStdin()
			switch {
			case input == "" && isTerminal(os.Stdin):
				return Usagef("give a file written by 'lagscope diagnose --json' (or - for standard input)")
			case input != "" && input != "-":
				f, err := os.Open(input)
				if err != nil {
					return Usagef("open %s: %v", input, err)
				}
				defer f.Close()
				rd = f
			}
			rep, err := report.Read(rd)
			name := input
			if name == "" || name == "-" {
				name = "standard input"
			}
			if err != nil {
				return Usagef("%s: %v", name, err)
			}
			rep.RebuiltFrom = &render.Source{File: name, RecordedAt: rep.Start}
			if err := report.Render(cmd.OutOrStdout(), rep, format); err != nil {
				return Usage(err)
			}
			return nil
		},
	}
	c.Flags().StringVar(&input, "input", "", "saved JSON report (- for standard input)")
	c.Flags().StringVar(&format, "format", "", "text (default), markdown, json or html")
	c.Flags().BoolVar(&asJSON, "json", false, "same as --format json")
	return c
}
