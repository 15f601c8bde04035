package reproduce

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/lagscope/lagscope/internal/sleep"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/lab"
)

// bigTxn is one transaction updating every row, as the subscriber saw it.
type bigTxn struct {
	WorkMem string
	// PeakSentMinusFlush is the largest sent_lsn - flush_lsn seen (bytes),
	// sampled every 100 ms from the transaction's start until it is applied.
	PeakSentMinusFlush int64
	Decoded            slotStat // what the slot decoded meanwhile
	Seconds            float64  // from the UPDATE's start until applied
}

// bigTransaction builds a flat pair with the subscription caught up, then
// runs one UPDATE of every row with logical_decoding_work_mem 4GB (not
// streamed) and with the plan's streamed setting (seed 000, section 4).
func (b *bottleneck) bigTransaction(ctx context.Context) ([]bigTxn, error) {
	b.o.logf("one transaction updating all %d rows, logical_decoding_work_mem 4GB then %s", b.plan.rows, b.plan.streamedMem)
	p, err := lab.NewPair(ctx, lab.PairOptions{Bin: b.o.Bin, PubCPUs: b.o.PubCPUs, SubCPUs: b.o.SubCPUs, Rows: b.plan.rows,
		Layout: lab.Flat, Binary: true, Streaming: "on", Purpose: "lab reproduce bottleneck", Log: b.o.Log})
	if err != nil {
		return nil, err
	}
	defer p.Close()
	if err := p.SetEnabled(ctx, true); err != nil {
		return nil, err
	}
	pub, sub := p.Pub.ConnString(lab.Database), p.Sub.ConnString(lab.Database)
	var out []bigTxn
	for i, mem := range []string{"4GB", b.plan.streamedMem} {
		if err := lab.Exec(ctx, pub, fmt.Sprintf("ALTER SYSTEM SET logical_decoding_work_mem = '%s'", mem), "SELECT pg_reload_conf()"); err != nil {
			return nil, err
		}
		if err := sleep.For(ctx, time.Second); err != nil { // the walsender rereads its configuration
			return nil, err
		}
		bt, err := oneBigUpdate(ctx, pub, sub, int64(i+1))
		if err != nil {
			return nil, fmt.Errorf("big transaction with logical_decoding_work_mem %s: %w", mem, err)
		}
		bt.WorkMem = mem
		out = append(out, bt)
	}
	const q = "SELECT count(*) * 1000000007 + sum(k) FROM hot"
	want, err1 := lab.Query[int64](ctx, pub, q)
	got, err2 := lab.Query[int64](ctx, sub, q)
	if err1 != nil || err2 != nil || got != want {
		b.t.Failures = append(b.t.Failures, fmt.Sprintf("big transaction: subscriber checksum %d vs publisher %d (%v %v)", got, want, err1, err2))
	}
	return out, nil
}

// oneBigUpdate runs UPDATE hot SET k = k + 1 in one transaction (the n-th
// such update, so k = n afterwards) and samples sent - flush until the
// subscriber has applied it.
func oneBigUpdate(ctx context.Context, pub, sub string, n int64) (bigTxn, error) {
	var bt bigTxn
	before, err := readSlotStats(ctx, pub)
	if err != nil {
		return bt, err
	}
	mon, err := pgx.Connect(ctx, pub)
	if err != nil {
		return bt, err
	}
	defer mon.Close(context.Background())
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- lab.Exec(ctx, pub, "UPDATE hot SET k = k + 1") }()
	updated := false
	deadline := start.Add(10 * time.Minute)
	for tick := 0; ; tick++ {
		var lag *int64
		err := mon.QueryRow(ctx, "/* lagscope */ SELECT pg_wal_lsn_diff(sent_lsn, flush_lsn)::bigint FROM pg_stat_replication WHERE application_name = 'lab_sub'").Scan(&lag)
		if err != nil && err != pgx.ErrNoRows {
			return bt, err
		}
		if lag != nil && *lag > bt.PeakSentMinusFlush {
			bt.PeakSentMinusFlush = *lag
		}
		select {
		case err := <-done:
			if err != nil {
				return bt, err
			}
			updated = true
		default:
		}
		if updated && tick%5 == 0 {
			k, err := lab.Query[int64](ctx, sub, "SELECT k FROM hot WHERE id = 1")
			if err == nil && k == n {
				break
			}
		}
		if time.Now().After(deadline) {
			return bt, fmt.Errorf("not applied within 10 minutes")
		}
		if err := sleep.For(ctx, 100*time.Millisecond); err != nil {
			return bt, err
		}
	}
	bt.Seconds = time.Since(start).Seconds()
	after, err := readSlotStats(ctx, pub)
	if err != nil {
		return bt, err
	}
	bt.Decoded = after.sub(before).total()
	return bt, nil
}

func mb(b int64) float64 { return float64(b) / 1e6 }

// bigRows are the big transaction's rows for the lag section.
func bigRows(big []bigTxn) ([]Row, []Ratio) {
	if len(big) != 2 {
		return nil, nil
	}
	ns, st := big[0], big[1]
	rows := []Row{
		NewRow("one big txn: decoded", "253 MB", "MB", []float64{mb(ns.Decoded.TotalBytes)}),
		NewRow("one big txn, not streamed: peak sent - flush", "54 MB", "MB", []float64{mb(ns.PeakSentMinusFlush)}),
		NewRow("one big txn, streamed: peak sent - flush", "12 MB", "MB", []float64{mb(st.PeakSentMinusFlush)}),
		NewRow("one big txn, streamed: stream_txns", "1", "txns", []float64{float64(st.Decoded.StreamTxns)}),
		NewRow("one big txn, not streamed: stream_txns", "0", "txns", []float64{float64(ns.Decoded.StreamTxns)}),
	}
	r := math.NaN()
	if st.PeakSentMinusFlush > 0 {
		r = float64(ns.PeakSentMinusFlush) / float64(st.PeakSentMinusFlush)
	}
	return rows, []Ratio{NewRatio("one big txn: peak sent - flush, not streamed vs streamed", 4.5, r, 0,
		"shown: the peak depends on socket buffers and the table's size")}
}
