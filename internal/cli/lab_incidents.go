//go:build linux

package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/lab/incident"
	"github.com/lagscope/lagscope/internal/units"
)

func newLabIncidentsCmd() *cobra.Command {
	var sf serverFlags
	var rows int
	var short, asJSON bool
	var dir string
	c := &cobra.Command{
		Use:   "incidents",
		Short: "Record one pair through scripted incidents and check what the timeline and diagnose --at make of them",
		Long: `Builds a pair (its subscription through the lab's link) and records it with
lagscope's recorder, as 'lagscope record' does, while the lab makes incidents
at known times, each between caught-up stretches:

  lock         a subscriber session holds LOCK TABLE hot IN SHARE MODE under a
               steady load (16 clients, 1000 transactions/s)
  link         the link slowed to 1 MB/s under the same load
  starved      the 16-client load on the publisher's CPU: the walsender waits
  stalled      the subscription disabled while the load builds a backlog
  apply-bound  3 extra indexes on the subscriber's table; the backlog drains
               with the publisher idle

Each fault is held (--short: 25 s; else 90 s), then undone: its stretch ends
there, and a drain stretch follows until the backlog has drained (whatever
limits the drain is shown, not checked; apply-bound's stretch is its drain). A live 'lagscope diagnose' runs in every
stretch. Afterwards the recording is read back: 'lagscope timeline' must find
each incident, named right, starting and ending within one window (--short:
10 s; else 30 s) of the lab's times, and nothing over a caught-up stretch;
'diagnose --from-recording --between' over each live diagnose's window must
give the live verdict. It also states the recording's size per hour and the
recorder's cost: its sessions' CPU on each server and this process's memory.

The whole script takes about 36 minutes (--short: about 5). The recording
stays in --dir.

Exit codes: 0 every check held, 1 one did not (the table says which), 2 usage,
3 the run failed.`,
		Example: `  lagscope lab incidents --pg-bin /usr/lib/postgresql/16/bin --dir /tmp/incidents
  lagscope lab incidents --short --json --dir /tmp/incidents
  lagscope timeline --from-recording /tmp/incidents --since 1h`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if dir == "" {
				return Usagef("--dir is required: an empty directory to record in")
			}
			if rows < 1000 {
				return Usagef("--rows %d: use at least 1000", rows)
			}
			srv, err := sf.resolve()
			if err != nil {
				return err
			}
			s := incident.Long()
			if short {
				s = incident.Short()
			}
			res, err := incident.Run(cmd.Context(), incident.Options{
				Pair:    lab.PairOptions{Bin: srv.bin, PubCPUs: srv.pub, SubCPUs: srv.sub, Rows: rows, Binary: true, Streaming: "on"},
				PGBench: srv.pgbench, Script: s, Dir: dir, Log: cmd.ErrOrStderr()})
			if err != nil {
				return &ExitError{Code: ExitFailure, Err: err}
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				err = enc.Encode(res)
			} else {
				err = writeIncidents(cmd.OutOrStdout(), res)
			}
			if err != nil {
				return &ExitError{Code: ExitFailure, Err: err}
			}
			if !res.OK() {
				return &ExitError{Code: ExitFinding, Err: errors.New("the timeline or a recorded diagnosis did not match the lab's incidents")}
			}
			return nil
		},
	}
	sf.bind(c, "the publisher and its pgbench", "the subscriber")
	f := c.Flags()
	f.IntVar(&rows, "rows", 100_000, "rows in the hot table")
	f.BoolVar(&short, "short", false, "the short script (about 4 minutes; CI's)")
	f.BoolVar(&asJSON, "json", false, "print one JSON object")
	f.StringVar(&dir, "dir", "", "an empty directory to record in (kept)")
	return c
}

// writeIncidents prints the run as a table: each stretch with the lab's
// times, the timeline's incident and the live and recorded verdicts.
func writeIncidents(w io.Writer, r *incident.Result) error {
	fmt.Fprintf(w, "PostgreSQL %s, %s to %s, timeline window %.0f s\n\n", r.Server, r.Start.Format(time.TimeOnly), r.End.Format(time.TimeOnly), r.WindowS)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STRETCH\tLAB FROM-TO\tWANT\tTIMELINE\tOFFSETS\tLIVE\tRECORDED\tOK")
	for _, s := range r.Stretches {
		found, offs := "-", "-"
		if s.Incident != nil {
			found = fmt.Sprintf("%s %s-%s", s.Incident.Verdict, s.Incident.Start.Format(time.TimeOnly), s.Incident.End.Format(time.TimeOnly))
			offs = fmt.Sprintf("%+.0f/%+.0f s", s.Incident.StartOffS, s.Incident.EndOffS)
		}
		live, recd, ok := "-", "-", s.OK
		if l := s.Live; l != nil {
			live, recd, ok = string(l.Verdict), string(l.Recorded), ok && l.Same()
			if l.Err != "" {
				recd = "error: " + l.Err
			}
		}
		want := string(s.Want)
		if s.Kind == incident.Drain {
			want = "(not asked)"
		}
		mark := "yes"
		if !ok {
			mark = "NO " + s.Why
		}
		fmt.Fprintf(tw, "%s\t%s-%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.Kind, s.From.Format(time.TimeOnly), s.To.Format(time.TimeOnly), want, found, offs, live, recd, mark)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	o := r.Overhead
	rss := make([]string, len(o.RSSMB))
	for i, m := range o.RSSMB {
		rss[i] = fmt.Sprint(m)
	}
	fmt.Fprintf(w, "\nrecording: %s in %s (%s per hour)\n", units.FormatBytes(float64(r.Recording.Bytes)), r.Recording.Dir, units.FormatBytes(r.Recording.BytesPerHour))
	fmt.Fprintf(w, "recorder: its sessions %.2f%% of a core on the publisher (%d), %.2f%% on the subscriber (%d) over %.0f s; this process's memory after each stretch %s MB\n",
		100*o.PubCPUShare, o.PubSessions, 100*o.SubCPUShare, o.SubSessions, o.Seconds, strings.Join(rss, ", "))
	if o.Lost > 0 {
		fmt.Fprintf(w, "(%d of the recorder's sessions ended before the run did: their CPU is not counted)\n", o.Lost)
	}
	return nil
}
