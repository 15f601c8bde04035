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
	if r.Standby != nil {
		renderStandby(w, r)
		return nil
	}
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

// renderStandby prints a physical scenario's measurement.
func renderStandby(w io.Writer, r *Result) {
	sr := r.Standby
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "window\t%.1f s\n", r.WindowS)
	fmt.Fprintf(tw, "generated\t%s of WAL (publisher's pg_current_wal_lsn)\n", units.FormatRate(sr.GeneratedMBps*1e6))
	fmt.Fprintf(tw, "received\t%s (standby's pg_last_wal_receive_lsn)\n", units.FormatRate(sr.ReceivedMBps*1e6))
	fmt.Fprintf(tw, "replayed\t%s (standby's pg_last_wal_replay_lsn)\n", units.FormatRate(sr.ReplayedMBps*1e6))
	fmt.Fprintf(tw, "replay backlog\t%s -> %s (received, not replayed at the end: %s)\n", units.FormatBytes(float64(sr.ReplayBacklogStart)),
		units.FormatBytes(float64(sr.ReplayBacklogEnd)), units.FormatBytes(float64(sr.ReplayBacklogEnd-sr.ReceiveBacklogEnd)))
	fmt.Fprintf(tw, "replay paused\t%.0f%% of ticks\n", 100*sr.PausedShare)
	if sr.ReplayAgeS >= 0 {
		fmt.Fprintf(tw, "last replayed commit\t%.0f s ago (now() - pg_last_xact_replay_timestamp())\n", sr.ReplayAgeS)
	}
	if sr.SyncState != "" {
		fmt.Fprintf(tw, "sync_state\t%s\n", sr.SyncState)
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "process\tCPU\trun queue\twait events (share of probes)")
	fmt.Fprintf(tw, "startup (replay)\t%s\t%s\t%s\n", pct(sr.Startup.CPUShare), pct(sr.Startup.RunqueueShare), waitLine(sr.Startup.WaitShares, 3))
	fmt.Fprintf(tw, "load's sessions\t\t\t%s\n", waitLine(sr.Clients.WaitShares, 3))
	tw.Flush()
	if sr.BehindS > 0 {
		fmt.Fprintf(w, "startup CPU over the %.0f s replay was behind by more than 1 MB\n", sr.BehindS)
	}
	if h := sr.Holder; h != nil {
		fmt.Fprintf(w, "snapshot holder: pid %d (%s), backend_start %s, still there at the end: %t\n", h.PID, h.App, h.BackendStart.UTC().Format("2006-01-02 15:04:05.000 MST"), sr.HolderAlive)
	}
	if c := sr.Cascade; c != nil {
		fmt.Fprintf(w, "cascade: %s behind the publisher, %s behind the standby's received WAL, replayed %s\n",
			units.FormatBytes(float64(c.BehindPrimary)), units.FormatBytes(float64(c.BehindStandby)), units.FormatRate(c.ReplayedMBps*1e6))
	}
	if sr.Link != nil {
		fmt.Fprintf(w, "standby's link: configured %.1f MB/s, measured %.2f MB/s publisher->standby\n", sr.Link.ConfiguredMBps, sr.Link.MeasuredMBps)
	}
	for i, c := range sr.CatchUps {
		if c.TimedOut {
			fmt.Fprintf(w, "catch-up %d: %s to replay, not caught up within %s\n", i+1, units.FormatBytes(float64(c.BacklogBytes)), catchUpLimit)
			continue
		}
		fmt.Fprintf(w, "catch-up %d: %s in %.1f s; replay %.1f MB/s, WAL %.1f MB/s (first %s: replay %.1f, WAL %.1f MB/s)\n", i+1,
			units.FormatBytes(float64(c.BacklogBytes)), c.Seconds, c.ReplayMBps, c.WALMBps, catchUpStart, c.ReplayMBpsAtStart, c.WALMBpsAtStart)
		if c.CaughtUpSeconds > 0 {
			fmt.Fprintf(w, "catch-up %d: within %s of the publisher's moving position after %.1f s\n", i+1, units.FormatBytes(float64(CaughtUpSlack(c.WALMBpsAtStart*1e6))), c.CaughtUpSeconds)
		}
	}
	if r.DataMatches != nil {
		verdict := "MATCH"
		if !*r.DataMatches {
			verdict = "MISMATCH"
		}
		fmt.Fprintf(w, "data: %s - %s\n", verdict, r.DataDetail)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}
