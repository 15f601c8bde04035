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
// VM); on a saturated CPU the pieces are stretched by the time the session
// waits for a CPU between its slices, as a busy walsender or apply worker
// is. The fastest piece of a window estimates the bare cost (a piece that
// fits in one slice is not stretched), so the stretch of the whole burst
// over it is measured against the same CPU and server: it needs no /proc.
// A piece was sized so that a burst every burstEvery ticks costs about 2 ms
// of a CPU a second (docs/no-proc.md).
const (
	burstRows  = 20000
	burstParts = 4
	burstEvery = 2
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
