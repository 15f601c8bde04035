package cli

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/lagscope/lagscope/internal/recorder"
	"github.com/lagscope/lagscope/internal/timeline"
)

func newTimelineCmd() *cobra.Command {
	var dir, format, between string
	var since, window time.Duration
	var asJSON bool
	c := &cobra.Command{
		Use:   "timeline",
		Short: "List the incidents of a recording: intervals with their verdict, peak lag and how each ended",
		Long: `Classifies a recording made by 'lagscope record' or 'lagscope exporter
--record' window by window (--window) with the same diagnosis as 'lagscope
diagnose', and joins each path's consecutive windows with the same finding
into one incident: its start and end, verdict, highest confidence, peak lag,
and how it ended (caught up, became another verdict, then not sampled, or still
on at the end of the recording). 'lagscope diagnose --from-recording DIR
--between START,END' gives any incident's full report.

--format html writes one self-contained page (no script, nothing fetched):
the lag over the span with the limiting stage of each window as a coloured
band under it, the incidents as a table, and each incident's report (that
diagnose over its window, for its slot) in the same page, linked from the
table (the first 40; the rest name the command).`,
		Example: `  lagscope timeline --from-recording /var/lib/lagscope/rec --since 24h
  lagscope timeline --from-recording /var/lib/lagscope/rec/orders-eu --between 02:00,04:00 --json
  lagscope timeline --from-recording /var/lib/lagscope/rec --since 24h --format html > timeline.html`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if format, err = outputFormat(format, asJSON); err != nil {
				return err
			}
			if format != "text" && format != "json" && format != "html" {
				return Usagef("--format %s: timeline writes text, json or html", format)
			}
			if dir == "" {
				return Usagef("--from-recording DIR is required")
			}
			if window < 2*time.Second {
				return Usagef("--window must be at least 2s")
			}
			d, err := recorder.Resolve(dir)
			if err != nil {
				return Usagef("--from-recording: %v", err)
			}
			first, last, err := recorder.Span(d)
			if err != nil {
				return Usagef("--from-recording: %v", err)
			}
			from, to := first, last
			switch {
			case between != "":
				if from, to, err = recorder.ParseBetween(between, time.Now(), time.Local); err != nil {
					return Usage(err)
				}
			case last.Add(-since).After(first):
				from = last.Add(-since)
			}
			tl, err := timeline.Read(d, from, to.Add(time.Nanosecond), window)
			if err != nil {
				return Usagef("--from-recording %s: %v", d, err)
			}
			switch format {
			case "json":
				return timeline.JSON(cmd.OutOrStdout(), tl)
			case "html":
				return timeline.HTML(cmd.OutOrStdout(), tl, time.Local)
			}
			return timeline.Text(cmd.OutOrStdout(), tl, time.Local)
		},
	}
	f := c.Flags()
	f.StringVar(&dir, "from-recording", "", "the recording's directory (a pair's, or the root holding one)")
	f.DurationVar(&since, "since", 24*time.Hour, "how far back from the recording's end")
	f.StringVar(&between, "between", "", "instead of --since: FROM,TO (03:00,04:00 or RFC 3339)")
	f.DurationVar(&window, "window", 30*time.Second, "the length of each classified window: an incident's start and end are known to one window")
	f.StringVar(&format, "format", "", "text (default), json or html (one self-contained page: the lag, the limiting stage as a band, each incident's report)")
	f.BoolVar(&asJSON, "json", false, "same as --format json")
	return c
}
