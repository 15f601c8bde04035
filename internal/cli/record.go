package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/lagscope/lagscope/internal/exporter"
	"github.com/lagscope/lagscope/internal/monitor"
	"github.com/lagscope/lagscope/internal/quote"
	"github.com/lagscope/lagscope/internal/recorder"
	"github.com/lagscope/lagscope/internal/units"
)

// recordOptions are 'lagscope record”s flags.
type recordOptions struct {
	pair      monitor.Options
	dir       string
	retainAge time.Duration
	retainSz  recorder.Size
	segment   time.Duration
}

// Validate checks the flags and fills the pair's defaults.
func (o *recordOptions) Validate() error {
	if o.pair.Diagnose.Publisher == "" && !o.pair.Diagnose.Physical() {
		return Usagef("--publisher is required (a connection string such as 'host=db1 dbname=app' or postgres://db1/app), or --primary and/or --standby for a physical standby")
	}
	if o.dir == "" {
		return Usagef("--dir is required: the directory to record in (each pair in DIR/<name>)")
	}
	if _, err := recorder.PathDir(o.dir, o.pair.Pair); err != nil {
		return Usagef("--name: %v", err)
	}
	if o.retainAge < 0 || o.segment < 0 {
		return Usagef("--retain-age and --segment must be positive")
	}
	if err := o.pair.Validate(); err != nil {
		return Usage(err)
	}
	return nil
}

func newRecordCmd() *cobra.Command {
	o := &recordOptions{}
	p := &o.pair
	p.Pair = "default"
	p.Diagnose.Tick = time.Second
	c := &cobra.Command{
		Use:   "record",
		Short: "Record a pair's samples to disk continuously, for 'diagnose --from-recording' on any past window",
		Long: `Samples one publisher (and its subscriber) continuously, as 'lagscope
exporter' does - the same read-only sessions and wait-event probes - and writes
what it samples to DIR/<name>: segments of compressed JSON lines, one member per
--step, with an index of times and the pair's setup whenever it changes
(docs/recorder.md). A recorder killed at any moment loses at most the step it
was sampling. 'lagscope diagnose --from-recording DIR --at TIME' classifies
any window of it later, with the setup current then.

Segments older than --retain-age, and the oldest while the recording takes
more than --retain-size, are removed. Passwords are never written: a recording
holds samples, not connection strings. The directory is created 0700, its
files 0600.

A server that goes away is recorded as a gap with why, and retried with a
growing backoff (at most 30 s). Ctrl-C (or SIGTERM) ends the segment cleanly.

Exit codes: 0 stopped by SIGINT/SIGTERM, 2 usage error, 3 the recording
stopped (a write failed: a full file system, say).

A physical standby is recorded with --primary and/or --standby instead of
--publisher/--subscriber; 'diagnose --from-recording' then gives its physical
report (verdict, lag per stage, catch-up forecast).`,
		Example: `  lagscope record --publisher 'host=pub dbname=app user=monitor' --subscriber 'host=sub dbname=app user=monitor' --dir /var/lib/lagscope/rec
  lagscope record --publisher ... --subscriber ... --dir rec --retain-age 72h --retain-size 1GiB
  lagscope record --primary 'host=db1 dbname=postgres' --standby 'host=db1r dbname=postgres' --name replica --dir rec
  lagscope diagnose --from-recording rec --at 03:00 --window 30s`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			dir, _ := recorder.PathDir(o.dir, p.Pair)
			w, err := recorder.Open(recorder.Options{Dir: dir, Pair: p.Pair, RetainAge: o.retainAge, RetainSize: int64(o.retainSz), SegmentEvery: o.segment})
			if err != nil {
				return Usagef("--dir %s: %v", o.dir, err)
			}
			st := newRecordStatus(cmd.ErrOrStderr(), dir)
			ctx, stop := context.WithCancel(cmd.Context())
			defer stop()
			var failed error
			monitor.Run(ctx, *p, func(u monitor.Update) {
				if failed != nil {
					return
				}
				if err := exporter.RecordUpdate(w, u); err != nil {
					failed = err
					stop()
					return
				}
				st.show(w.Status(), u)
			})
			st.end()
			if err := w.Close(); err != nil && failed == nil {
				failed = err
			}
			if failed != nil {
				return &ExitError{Code: ExitFailure, Err: failed}
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&o.dir, "dir", "", "the directory to record in: the pair's recording goes to DIR/<name> (created 0700)")
	f.StringVar(&p.Pair, "name", "default", "the pair's name: its directory under --dir")
	f.StringVar(&p.Diagnose.Publisher, "publisher", "", "publisher connection string (keyword/value or URI)")
	f.StringVar(&p.Diagnose.Subscriber, "subscriber", "", "subscriber connection string; omit for consumers that are not PostgreSQL subscribers")
	f.StringVar(&p.Diagnose.Primary, "primary", "", "a physical standby's primary (connection string); alone, every standby it feeds")
	f.StringVar(&p.Diagnose.Standby, "standby", "", "a physical standby (connection string): its WAL receiver and replay")
	f.StringVar(&p.Diagnose.Slot, "slot", "", "record only this slot's path")
	f.StringVar(&p.Diagnose.Subscription, "subscription", "", "record only this subscription's path")
	f.BoolVar(&p.Diagnose.NoProc, "no-proc", false, "do not read /proc (servers on another host or in a container)")
	f.Float64Var(&p.Diagnose.ProbeHz, "probe-hz", 0, "wait-event probes per second per server (default: 10 where this host's /proc shows the server's processes; 20 where it does not)")
	f.BoolVar(&p.Diagnose.KeepQueryLiterals, "keep-query-literals", false, "keep the constants in the captured query text of lock blockers and open transactions (by default they are replaced with $1, $2, ... before anything is written; passwords are hidden either way)")
	f.DurationVar(&p.Step, "step", 5*time.Second, "how much is sampled per member written: a kill loses at most this much (at least 2s)")
	f.DurationVar(&p.Window, "window", monitor.DefaultWindow, "the rolling window of the status line's verdict")
	f.DurationVar(&o.retainAge, "retain-age", recorder.DefaultRetainAge, "remove segments older than this")
	o.retainSz = recorder.Size(recorder.DefaultRetainSize)
	f.Var(&o.retainSz, "retain-size", "remove the oldest segments while the pair's recording takes more than this (512MiB, 2GB, unlimited)")
	f.DurationVar(&o.segment, "segment", recorder.DefaultSegmentEvery, "how long one segment covers (retention removes whole segments)")
	return c
}

// recordStatus prints the recorder's progress: one line rewritten in
// place on a terminal, else a line a minute (and on each change of
// reachability).
type recordStatus struct {
	out      io.Writer
	term     bool
	dir      string
	lastLine time.Time
	down     bool
	shown    bool
}

func newRecordStatus(out io.Writer, dir string) *recordStatus {
	fmt.Fprintf(out, "recording in %s (Ctrl-C stops)\n", dir)
	return &recordStatus{out: out, term: isTerminal(out), dir: dir}
}

// show reports one step.
func (s *recordStatus) show(st recorder.Status, u monitor.Update) {
	what := "ok"
	if u.Err != nil {
		what = "not sampled: " + quote.Escape(u.Err.Error())
	} else if u.Report != nil && len(u.Report.Paths) > 0 {
		what = string(u.Report.Paths[0].Verdict.Name)
	} else if u.Report != nil && len(u.Report.Physical) > 0 {
		what = string(u.Report.Physical[0].Verdict.Name)
	}
	down := u.Err != nil
	line := fmt.Sprintf("%s  %d steps, %s written, %s on disk in %d segment(s); last %s",
		time.Now().Format("15:04:05"), st.Steps, units.FormatBytes(float64(st.Bytes)), units.FormatBytes(float64(st.DiskBytes)), st.Segments, what)
	switch {
	case s.term:
		fmt.Fprintf(s.out, "\r\033[K%s", line)
		s.shown = true
	case down != s.down || time.Since(s.lastLine) >= time.Minute:
		fmt.Fprintln(s.out, line)
		s.lastLine = time.Now()
	}
	s.down = down
}

// end ends the status line.
func (s *recordStatus) end() {
	if s.shown {
		fmt.Fprintln(s.out)
	}
	fmt.Fprintf(s.out, "recording in %s stopped\n", s.dir)
}
