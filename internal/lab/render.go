package lab

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/units"
)

// RenderText prints a Result like seed 000's tables.
func RenderText(w io.Writer, r *Result) error {
	fmt.Fprintf(w, "lab run %s - PostgreSQL %s, %s layout, %d rows, publisher CPUs %s, subscriber CPUs %s\n\n",
		r.Scenario, r.ServerVersion, r.Layout, r.Rows, r.PubCPUs, r.SubCPUs)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "window\t%.1f s\n", r.WindowS)
	fmt.Fprintf(tw, "consumed\t%s of WAL (slowest slot's confirmed_flush_lsn)\n", units.FormatRate(r.ConsumedMBps*1e6))
	fmt.Fprintf(tw, "decoded\t%s of WAL (slowest walsender's sent_lsn)\n", units.FormatRate(r.DecodedMBps*1e6))
	fmt.Fprintf(tw, "generated\t%s of WAL (pg_current_wal_lsn)\n", units.FormatRate(r.GeneratedMBps*1e6))
	fmt.Fprintf(tw, "net\t%+.1f MB/s\n", r.ConsumedMBps-r.GeneratedMBps)
	if r.HostBusy >= 0 {
		fmt.Fprintf(tw, "host CPU busy\t%.0f%%\n", 100*r.HostBusy)
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "process\tcount\tCPU\trun queue\twait events (share of probes)")
	for _, x := range []struct {
		name string
		p    measure.Proc
	}{{"walsender", r.Walsender}, {"apply worker", r.Apply}} {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", x.name, x.p.Count, pct(x.p.CPUShare), pct(x.p.RunqueueShare), waitLine(x.p.WaitShares, 3))
	}
	tw.Flush()
	fmt.Fprintln(w)
	l := r.Lag
	fmt.Fprintf(w, "where the lag sits: %s unconfirmed; not yet sent %s (%.0f%%), sent not flushed %s, flushed not confirmed %s; max sent-flush %s\n",
		units.FormatBytes(float64(l.Total)), units.FormatBytes(float64(l.NotYetSent)), 100*l.BeforeSentShare,
		units.FormatBytes(float64(l.SentNotFlushed)), units.FormatBytes(float64(l.FlushedNotConfd)), units.FormatBytes(float64(l.MaxSentMinusFlush)))
	if r.Link != nil {
		fmt.Fprintf(w, "link: configured %.1f MB/s, measured %.2f MB/s publisher->subscriber (%+.1f%%)\n",
			r.Link.ConfiguredMBps, r.Link.MeasuredMBps, 100*r.Link.Error)
	}
	if r.DataMatches != nil {
		verdict := "MATCH"
		if !*r.DataMatches {
			verdict = "MISMATCH"
		}
		fmt.Fprintf(w, "data: %s - %s\n", verdict, r.DataDetail)
	} else if r.DataDetail != "" {
		fmt.Fprintf(w, "data: %s\n", r.DataDetail)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return nil
}

func pct(v float64) string {
	if v < 0 {
		return "n/a"
	}
	return units.Percent(v)
}

// waitLine prints the n most frequent wait events.
func waitLine(m map[string]float64, n int) string {
	var parts []string
	for _, e := range measure.Ranked(m) {
		if len(parts) == n {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %s", e.Event, pct(e.Share)))
	}
	if len(parts) == 0 {
		return "no probes"
	}
	return strings.Join(parts, ", ")
}
