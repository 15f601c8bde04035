package model

import (
	"fmt"
	"math"
	"strings"

	"github.com/lagscope/lagscope/internal/units"
)

// LagTime is the lag of a path in time: how long the unconfirmed WAL takes
// to drain at today's rate, or at least how long it has waited (the window,
// when nothing drained), beside what the walsender reports (flush_lag).
type LagTime struct {
	// Seconds is the larger of DrainS and FlushLagS; not measured (null)
	// when neither is known (nothing drains, or nothing to measure).
	Seconds Optional[float64] `json:"seconds"`
	// DrainS is the backlog divided by the drain rate (Summary.Progress):
	// how long the unconfirmed WAL takes to go at today's rate; not
	// measured (null) when nothing drains (under StillRate).
	DrainS Optional[float64] `json:"drain_s"`
	// FlushLagS is the walsender's flush_lag at the window's end
	// (pg_stat_replication: time from sending a commit to the subscriber
	// confirming it flushed it); not measured (null) when NULL or not
	// sampled.
	FlushLagS Optional[float64] `json:"flush_lag_s"`
	// Text says it in one line, with the rate it used.
	Text string `json:"text,omitempty"`
}

// verdictLagTime is the lag in time a verdict states: the positions'
// (lagTime), unless a transaction in flight holds more WAL on the slot than
// their difference: its WAL, not their difference, is then the lag (a
// 396 MB transaction being applied showed as "4.8 kB, about 0.0 s"), and
// the positions cannot say how long it takes.
func verdictLagTime(in Input, txn *LargeTxn) LagTime {
	lt := lagTime(in)
	if !txnHoldsLag(txn, in.Summary.Lag.Total) {
		return lt
	}
	return LagTime{FlushLagS: lt.FlushLagS,
		Text: fmt.Sprintf("lag in time: unknown: a transaction in flight holds %s of WAL on the slot; the positions do not move until its commit is applied", units.FormatBytes(float64(txn.HeldBytes)))}
}

// txnHoldsLag says a transaction in flight (nil none) holds more WAL on
// the slot than the positions' difference (lag, bytes).
func txnHoldsLag(txn *LargeTxn, lag int64) bool { return txn != nil && txn.HeldBytes > lag }

// TxnCatchUp is when a path whose transaction in flight holds more WAL
// than its positions' difference (lag, bytes) catches up, in a sentence;
// false when none does (the positions say it: report.CatchUp).
func TxnCatchUp(v Verdict, lag int64) (string, bool) {
	t := v.Txn
	if !txnHoldsLag(t, lag) {
		return "", false
	}
	until := map[string]string{TxnOpen: "commits and is sent and applied", TxnDecoding: "is decoded, sent and applied"}[t.Phase]
	if until == "" {
		until = "is applied"
	}
	return fmt.Sprintf("caught up once the transaction in flight (%s of WAL held) %s: the positions cannot show how far it has got", units.FormatBytes(float64(t.HeldBytes)), until), true
}

// lagTime derives the lag in time from the positions of the input (its
// flush_lag: measure's, negative when not read).
func lagTime(in Input) LagTime {
	s := in.Summary
	var lt LagTime
	if in.FlushLagS >= 0 {
		lt.FlushLagS = Known(in.FlushLagS)
	}
	rate, basis := s.Progress(), s.ProgressBasis()
	switch {
	case s.Lag.Total <= 0:
		lt.DrainS = Known(0.0)
	case rate >= StillRate:
		lt.DrainS = Known(float64(s.Lag.Total) / rate)
	}
	// The walsender's flush_lag reads microseconds for a logical path that
	// is hours behind (the subscriber reports flush = received when it has
	// no transaction pending); it counts, and is shown, only from a second:
	// a hidden sub-second one made "about 1.0 s: 2.6 MB at 3.2 MB/s".
	lt.Seconds = lt.DrainS
	flush, flushed := lt.FlushLagS.Get()
	flushed = flushed && flush >= 1
	if flushed {
		lt.Seconds = Known(math.Max(lt.DrainS.Or(0), flush))
	}
	drain, drains := lt.DrainS.Get()
	if !drains && s.Lag.Start > IdleLag && s.Lag.Total > IdleLag {
		// Nothing drained: the oldest change waited at least the whole
		// window (a flush_lag from the last reply before it is stale).
		lt.Seconds = Known(math.Max(lt.Seconds.Or(0), s.WindowS))
	}
	var parts []string
	if drains && drain > 0 {
		parts = append(parts, fmt.Sprintf("%s of backlog at the %s it drains (%s advance)", size(s.Lag.Total), units.FormatRate(rate), basis))
	} else if !drains && s.Lag.Total > 0 {
		parts = append(parts, fmt.Sprintf("%s of backlog that did not drain during the %s window", size(s.Lag.Total), secs(s.WindowS)))
	}
	if flushed {
		parts = append(parts, fmt.Sprintf("the walsender's flush_lag %s", secs(flush)))
	}
	if len(parts) == 0 {
		return lt
	}
	head := "lag in time: unknown"
	sec, known := lt.Seconds.Get()
	switch {
	case !drains && known:
		head = "lag in time: at least " + secs(sec)
	case known:
		head = "lag in time: about " + secs(sec)
	}
	lt.Text = head + ": " + strings.Join(parts, "; ")
	return lt
}

func secs(s float64) string { return units.FormatSeconds(s) }
