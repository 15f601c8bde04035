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
	// Seconds is the larger of DrainS and FlushLagS; -1 when neither is
	// known (nothing drains, or nothing to measure).
	Seconds float64 `json:"seconds" jsonschema:"nullable"`
	// DrainS is the backlog divided by the drain rate (Summary.Progress):
	// how long the unconfirmed WAL takes to go at today's rate; -1 when
	// nothing drains (under StillRate).
	DrainS float64 `json:"drain_s" jsonschema:"nullable"`
	// FlushLagS is the walsender's flush_lag at the window's end
	// (pg_stat_replication: time from sending a commit to the subscriber
	// confirming it flushed it); -1 when NULL or not sampled.
	FlushLagS float64 `json:"flush_lag_s" jsonschema:"nullable"`
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
	return LagTime{Seconds: -1, DrainS: -1, FlushLagS: lt.FlushLagS,
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

// lagTime derives the lag in time from the positions of the input.
func lagTime(in Input) LagTime {
	s := in.Summary
	lt := LagTime{Seconds: -1, DrainS: -1, FlushLagS: in.FlushLagS}
	if lt.FlushLagS < 0 {
		lt.FlushLagS = -1
	}
	rate, basis := s.Progress(), s.ProgressBasis()
	switch {
	case s.Lag.Total <= 0:
		lt.DrainS = 0
	case rate >= StillRate:
		lt.DrainS = float64(s.Lag.Total) / rate
	}
	// The walsender's flush_lag reads microseconds for a logical path that
	// is hours behind (the subscriber reports flush = received when it has
	// no transaction pending); it counts, and is shown, only from a second:
	// a hidden sub-second one made "about 1.0 s: 2.6 MB at 3.2 MB/s".
	lt.Seconds = lt.DrainS
	if lt.FlushLagS >= 1 {
		lt.Seconds = math.Max(lt.DrainS, lt.FlushLagS)
	}
	if lt.DrainS < 0 && s.Lag.Start > IdleLag && s.Lag.Total > IdleLag {
		// Nothing drained: the oldest change waited at least the whole
		// window (a flush_lag from the last reply before it is stale).
		lt.Seconds = math.Max(lt.Seconds, s.WindowS)
	}
	var parts []string
	if lt.DrainS > 0 {
		parts = append(parts, fmt.Sprintf("%s of backlog at the %s it drains (%s advance)", size(s.Lag.Total), units.FormatRate(rate), basis))
	} else if lt.DrainS < 0 && s.Lag.Total > 0 {
		parts = append(parts, fmt.Sprintf("%s of backlog that did not drain during the %s window", size(s.Lag.Total), secs(s.WindowS)))
	}
	if lt.FlushLagS >= 1 {
		parts = append(parts, fmt.Sprintf("the walsender's flush_lag %s", secs(lt.FlushLagS)))
	}
	if len(parts) == 0 {
		return lt
	}
	head := "lag in time: unknown"
	switch {
	case lt.DrainS < 0 && lt.Seconds >= 0:
		head = "lag in time: at least " + secs(lt.Seconds)
	case lt.Seconds >= 0:
		head = "lag in time: about " + secs(lt.Seconds)
	}
	lt.Text = head + ": " + strings.Join(parts, "; ")
	return lt
}

func secs(s float64) string { return units.FormatSeconds(s) }
