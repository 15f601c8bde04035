package lab

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/units"
)

// seqScanNsPerRow is what the subscriber's apply worker spends per row of
// hot it walks to find a replicated row without an index (REPLICA IDENTITY
// FULL: RelationFindReplTupleSeq compares every visible row with the old
// tuple), in nanoseconds, measured on the lab's 2-vCPU VM (PostgreSQL 15,
// 100k rows: 8000 updates drained at 0.13 MB/s of WAL, 3.5 ms each).
const seqScanNsPerRow = 70.0

// Bounds on the full-identity backlog, in single-row updates: at least
// enough to be a backlog, and few enough that its WAL stays far under the
// byte sizes of the other scenarios (an update of hot with REPLICA IDENTITY
// FULL logs about 400 bytes).
const (
	minFullIdentityUpdates = 200
	maxFullIdentityUpdates = 10_000
)

// fullIdentityUpdates is how many single-row updates of random rows keep
// the apply worker busy for about d: each one scans half of the rows'
// table on average (the scan stops at the row it looks for).
func fullIdentityUpdates(rows int, d time.Duration) int {
	perUpdate := float64(rows) / 2 * seqScanNsPerRow
	n := int(math.Ceil(float64(d.Nanoseconds()) / perUpdate))
	return min(max(n, minFullIdentityUpdates), maxFullIdentityUpdates)
}

// fullIdentityBacklog queues single-row updates with the subscriptions
// disabled: a backlog small in bytes but long in apply time (about d).
func (p *Pair) fullIdentityBacklog(ctx context.Context, lo LoadOptions, d time.Duration, log io.Writer) error {
	n := fullIdentityUpdates(lo.Rows, d)
	lo.Script = singleUpdateScript
	lo.Transactions = int(math.Ceil(float64(n) / float64(lo.Clients)))
	n = lo.Transactions * lo.Clients
	start, err := Query[lsn.LSN](ctx, p.Pub.ConnString(Database), "SELECT "+lsn.SQL("pg_current_wal_lsn()"))
	if err != nil {
		return fmt.Errorf("read the publisher's WAL position: %w", err)
	}
	fmt.Fprintf(log, "lab: building a backlog: %d single-row updates (about %s of apply work at %g ns per row scanned) with the subscription disabled\n",
		n, d.Round(time.Second), seqScanNsPerRow)
	load, err := StartLoad(ctx, p.Pub, lo)
	if err != nil {
		return err
	}
	if err := load.Wait(ctx); err != nil {
		return err
	}
	end, err := Query[lsn.LSN](ctx, p.Pub.ConnString(Database), "SELECT "+lsn.SQL("pg_current_wal_lsn()"))
	if err != nil {
		return fmt.Errorf("read the publisher's WAL position: %w", err)
	}
	fmt.Fprintf(log, "lab: the backlog is %s of WAL\n", units.FormatBytes(float64(end-start)))
	return nil
}

// MoreSingleUpdates queues more of full-identity's single-row updates,
// the 16-client load running them for share of the window with the
// subscriptions disabled: the same transactions as the state's backlog,
// many more of them ('lab whatif --change index-for-full' measures the
// drain once the apply worker finds rows by a key).
func MoreSingleUpdates(share float64) Step {
	return Step{Name: "more single-row updates", Start: func(ctx context.Context, d *driver) error {
		lo := d.lo
		lo.Script = singleUpdateScript
		return d.runBacklog(ctx, lo, share, false, "queueing more single-row updates")
	}}
}

// FullIndexName is the index full-identity-index creates on the
// subscriber's hot (id): not unique, not a key, usable for REPLICA
// IDENTITY FULL by the apply worker of 16+ (a btree, not partial, its first
// column a plain column the publisher sends).
const FullIndexName = "hot_id_lookup"

// SubIndexOnID creates FullIndexName on the subscriber's copy of hot.
var SubIndexOnID = Step{Name: "index on id", Start: func(ctx context.Context, d *driver) error {
	fmt.Fprintf(d.o.Log, "lab: index %s on the subscriber's hot (id), no primary key: the apply worker finds the REPLICA IDENTITY FULL rows by it\n", FullIndexName)
	return Exec(ctx, d.p.Sub.ConnString(Database), "CREATE INDEX "+FullIndexName+" ON hot (id)")
}}
