package sample

import (
	"context"
	"fmt"
	"strings"

	"github.com/lagscope/lagscope/internal/pg"
)

// A CPU burst is a fixed amount of work the observing session does on the
// server: burstParts pieces, each counting burstRows rows of
// generate_series, timed one by one inside one statement. On a CPU with
// nothing else to run a piece takes its bare cost (about 1 ms on the lab's
// VM); on a saturated CPU the session is preempted once its slice is used
// and waits behind the runnable load, as a busy walsender or apply worker
// does: the burst stalls for tens of milliseconds. The fastest piece of a
// window estimates the bare cost (a piece that fits in one slice is not
// stretched), so a burst's stretch over it is measured against the same
// CPU and server: it needs no /proc. With 4 pieces a starved walsender's
// server stalled about 70% of the bursts, and 3 of 5 bursts ran clean in
// one 10 s window on 15.18 (the window's median missed the starvation);
// with 8 pieces all 45 bursts of 9 starved windows (15, 16, 18) were
// stretched 5x or more, and 2 of 45 beside the lab's 8 MB/s link. A burst
// every 2 ticks cost 0.5% of a core per server (lab overhead: 0.94-1.08%
// in all, over the 1% goal); every 3 ticks (3-4 bursts in a 10 s window,
// about 3 ms of a CPU a second) keeps the window's median clear of one odd
// burst (docs/no-proc.md, docs/log/performance.md).
const (
	burstRows  = 20000
	burstParts = 8
	burstEvery = 3
)

// burstSQL times burstParts pieces of work in one statement: each piece is
// a count over a value-per-call generate_series (no tuplestore, no I/O),
// and each timestamp is taken after the piece before it (the LATERAL chain
// with OFFSET 0 keeps them in order, as in waitBatchSQL).
var burstSQL = func() string {
	var from, cols []string
	from = append(from, "(SELECT clock_timestamp() AS t0 OFFSET 0) AS a0")
	for i := 1; i <= burstParts; i++ {
		from = append(from,
			fmt.Sprintf("LATERAL (SELECT count(x) AS n FROM (SELECT generate_series(1, %d) AS x WHERE a%d.t0 IS NOT NULL) AS s OFFSET 0) AS b%d", burstRows, i-1, i),
			fmt.Sprintf("LATERAL (SELECT clock_timestamp() AS t0 WHERE b%d.n > 0 OFFSET 0) AS a%d", i, i))
		cols = append(cols, fmt.Sprintf("extract(epoch FROM a%d.t0 - a%d.t0)::float8 * 1000", i, i-1))
	}
	return pg.Marker + "SELECT ARRAY[" + strings.Join(cols, ", ") + "] FROM " + strings.Join(from, " CROSS JOIN ")
}()

// readBurst runs one CPU burst and returns its pieces' durations in
// milliseconds.
func readBurst(ctx context.Context, c *pg.Conn) ([]float64, error) {
	var ms []float64
	if err := c.QueryRow(ctx, burstSQL).Scan(&ms); err != nil {
		return nil, fmt.Errorf("time a CPU burst: %w", err)
	}
	return ms, nil
}
