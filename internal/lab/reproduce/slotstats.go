package reproduce

import (
	"context"
	"fmt"
	"math"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/lab"
)

// slotStat is one row of pg_stat_replication_slots (PostgreSQL 14+): what a
// slot's walsender decoded since the slot was made.
type slotStat struct {
	TotalTxns, TotalBytes   int64
	StreamTxns, StreamBytes int64
	SpillTxns, SpillBytes   int64
}

// slotStats maps slot name to its counters.
type slotStats map[string]slotStat

const slotStatsQuery = `/* lagscope */ SELECT slot_name, total_txns, total_bytes, stream_txns, stream_bytes, spill_txns, spill_bytes
FROM pg_stat_replication_slots`

func readSlotStats(ctx context.Context, dsn string) (slotStats, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("read slot stats: %w", err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, slotStatsQuery)
	if err != nil {
		return nil, fmt.Errorf("read slot stats: %w", err)
	}
	m := slotStats{}
	for rows.Next() {
		var n string
		var s slotStat
		if err := rows.Scan(&n, &s.TotalTxns, &s.TotalBytes, &s.StreamTxns, &s.StreamBytes, &s.SpillTxns, &s.SpillBytes); err != nil {
			return nil, fmt.Errorf("read slot stats: %w", err)
		}
		m[n] = s
	}
	return m, rows.Err()
}

// slotStatsHook reads the publisher's slot stats (as RunOptions.During it
// reads them when the window starts, as Inspect when it ends).
func slotStatsHook(ctx context.Context, p *lab.Pair) (any, error) {
	return readSlotStats(ctx, p.Pub.ConnString(lab.Database))
}

// sub returns b - a per slot (slots missing from a count from zero).
func (b slotStats) sub(a slotStats) slotStats {
	d := slotStats{}
	for n, x := range b {
		y := a[n]
		d[n] = slotStat{x.TotalTxns - y.TotalTxns, x.TotalBytes - y.TotalBytes, x.StreamTxns - y.StreamTxns,
			x.StreamBytes - y.StreamBytes, x.SpillTxns - y.SpillTxns, x.SpillBytes - y.SpillBytes}
	}
	return d
}

// total sums the counters over the slots.
func (s slotStats) total() slotStat {
	var t slotStat
	for _, x := range s {
		t.TotalTxns += x.TotalTxns
		t.TotalBytes += x.TotalBytes
		t.StreamTxns += x.StreamTxns
		t.StreamBytes += x.StreamBytes
		t.SpillTxns += x.SpillTxns
		t.SpillBytes += x.SpillBytes
	}
	return t
}

// windowStats is what the slots decoded during a lab run's window (During
// and Inspect both set to slotStatsHook); ok is false when either is missing.
func windowStats(r *lab.Result) (slotStat, bool) {
	a, okA := r.During.(slotStats)
	b, okB := r.Inspected.(slotStats)
	if !okA || !okB {
		return slotStat{}, false
	}
	return b.sub(a).total(), true
}

// txnsPerSecond is the transactions the slots decoded per second of window:
// applied, since a walsender decodes no further ahead than the subscriber
// takes (seed 000, section 4).
func txnsPerSecond(r *lab.Result) float64 {
	w, ok := windowStats(r)
	if !ok || r.WindowS <= 0 {
		return math.NaN()
	}
	return float64(w.TotalTxns) / r.WindowS
}

// bytesPerTxn is decoded bytes per transaction over the window.
func bytesPerTxn(r *lab.Result) float64 {
	w, ok := windowStats(r)
	if !ok || w.TotalTxns == 0 {
		return math.NaN()
	}
	return float64(w.TotalBytes) / float64(w.TotalTxns)
}

// slotEvenness is the least busy slot's total_txns over the busiest's at the
// end of the window (1 = every slot decoded as many transactions).
func slotEvenness(r *lab.Result) float64 {
	s, ok := r.Inspected.(slotStats)
	if !ok || len(s) == 0 {
		return math.NaN()
	}
	lo, hi := math.Inf(1), 0.0
	for _, x := range s {
		lo, hi = math.Min(lo, float64(x.TotalTxns)), math.Max(hi, float64(x.TotalTxns))
	}
	if hi == 0 {
		return math.NaN()
	}
	return lo / hi
}
