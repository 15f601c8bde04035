package reproduce

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/lab"
)

// The REPLICA IDENTITY FULL trap of seed 001: a table without a primary key,
// published with REPLICA IDENTITY FULL, identical on both sides; updates to
// its last rows are queued with the subscription disabled, then applied.
// Without a usable index the apply worker scans the table sequentially for
// every update (RelationFindReplTupleSeq); from PostgreSQL 16 a plain B-tree
// on id lets it look the row up (RelationFindReplTupleByIndex).

// riFullCase is one subscriber layout of the trap.
type riFullCase struct {
	Row   string // row name
	Index bool   // CREATE INDEX ... ON full_events (id) on the subscriber
	Seed  string
}

var riFullCases = []riFullCase{
	{Row: "RI FULL, no index: apply time", Index: false, Seed: "4.565 / 4.777"},
	{Row: "RI FULL, btree on id: apply time", Index: true, Seed: "0.149 / 0.151"},
}

const (
	// ratioRIFull is the index case's apply time over the no-index case's.
	// Expressed this way round, "at least 10x faster" is an upper bound,
	// which Ratio's symmetric tolerance can check: the seed's 0.150 / 4.671
	// (about 31x faster) with a tolerance reaching up to 0.1 and, below, past
	// zero.
	ratioRIFull     = "RI FULL: index vs no index (apply time)"
	riFullSeedRatio = 0.150 / 4.671
	// riFullAtLeast is the smallest speed-up that counts as reproduced on
	// PostgreSQL 16+.
	riFullAtLeast   = 10.0
	riFullTolerance = 1/(riFullAtLeast*riFullSeedRatio) - 1

	riFullPre16 = "REPLICA IDENTITY FULL: PostgreSQL 15 and older cannot use a non-unique index on the subscriber to find the row (16 added it), so both cases scan the table; measured anyway"

	riFullPublication  = "ri_pub"
	riFullSubscription = "ri_sub"
)

// The trap's size is the seed's, with or without --quick: it takes seconds,
// and the speed-up grows with the rows a sequential lookup walks, so a
// smaller table would shrink the one ratio checked here.
const (
	riFullRows    = 50000
	riFullUpdates = 2000
)

const fullEventsDDL = `CREATE TABLE full_events (
    id          bigint NOT NULL,
    account_id  integer NOT NULL,
    n           integer NOT NULL,
    payload     text NOT NULL
)`

const fullEventsChecksum = `SELECT /* lagscope */ count(*) || '/' || coalesce(sum(id), 0) || '/' || coalesce(sum(account_id), 0)
    || '/' || coalesce(sum(n), 0) || '/' || coalesce(sum(hashtext(payload)), 0) FROM full_events`

// riFull runs one case of the trap on fresh clusters and returns the apply
// time in seconds: from the walsender taking the slot until the marker row,
// committed after the updates, is visible on the subscriber.
func (r *cpuCost) riFull(ctx context.Context, withIndex bool, run int) (float64, string, error) {
	l, pub, sub, err := r.newLab(ctx, fmt.Sprintf("REPLICA IDENTITY FULL, index %t", withIndex), true)
	if err != nil {
		return 0, "", err
	}
	defer l.Close()
	rows, updates := riFullRows, riFullUpdates
	pubDSN, subDSN := pub.ConnString(cpuDatabase), sub.ConnString(cpuDatabase)
	fill := fmt.Sprintf("INSERT INTO full_events SELECT i, i %% 1000, 0, repeat(md5(i::text), 4) FROM generate_series(1, %d) i", rows)
	// The publisher's index only makes queuing the updates quick; with
	// REPLICA IDENTITY FULL the old row is sent whole regardless.
	if err := lab.Exec(ctx, pubDSN, fullEventsDDL, fill, markerDDL,
		"ALTER TABLE full_events REPLICA IDENTITY FULL",
		"CREATE INDEX full_events_pub_id_idx ON full_events (id)",
		"VACUUM ANALYZE full_events",
		fmt.Sprintf("CREATE PUBLICATION %s FOR TABLE full_events, lagscope_marker", riFullPublication)); err != nil {
		return 0, "", fmt.Errorf("publisher: %w", err)
	}
	stmts := []string{fullEventsDDL, fill, markerDDL}
	if withIndex {
		stmts = append(stmts, "CREATE INDEX full_events_lookup_idx ON full_events (id)")
	}
	stmts = append(stmts, "VACUUM ANALYZE full_events",
		fmt.Sprintf("CREATE SUBSCRIPTION %s CONNECTION '%s' PUBLICATION %s WITH (copy_data = false, enabled = false)",
			riFullSubscription, pubDSN, riFullPublication))
	if err := lab.Exec(ctx, subDSN, stmts...); err != nil {
		return 0, "", fmt.Errorf("subscriber: %w", err)
	}
	// One update per transaction to the last rows: a sequential lookup walks
	// nearly the whole table for each.
	queue := fmt.Sprintf(`DO $$ BEGIN
  FOR i IN %d..%d LOOP
    UPDATE full_events SET n = n + 1 WHERE id = i;
    COMMIT;
  END LOOP;
END $$`, rows-updates+1, rows)
	pubConn, err := pgx.Connect(ctx, pubDSN)
	if err != nil {
		return 0, "", fmt.Errorf("connect to publisher: %w", err)
	}
	defer pubConn.Close(context.Background())
	if _, err := pubConn.Exec(ctx, queue); err != nil {
		return 0, "", fmt.Errorf("publisher: queue updates: %w", err)
	}
	if _, err := insertMarker(ctx, pubConn, run); err != nil {
		return 0, "", fmt.Errorf("publisher: %w", err)
	}
	subConn, err := pgx.Connect(ctx, subDSN)
	if err != nil {
		return 0, "", fmt.Errorf("connect to subscriber: %w", err)
	}
	defer subConn.Close(context.Background())

	if _, err := subConn.Exec(ctx, "ALTER SUBSCRIPTION "+riFullSubscription+" ENABLE"); err != nil {
		return 0, "", fmt.Errorf("subscriber: enable subscription: %w", err)
	}
	active := func(ctx context.Context) (bool, error) {
		var ok bool
		err := pubConn.QueryRow(ctx, "SELECT /* lagscope */ coalesce(bool_or(active), false) FROM pg_replication_slots WHERE slot_name = $1", riFullSubscription).Scan(&ok)
		return ok, err
	}
	start, err := pollUntil(ctx, 5*time.Millisecond, time.Minute, "a walsender on slot "+riFullSubscription, active)
	if err != nil {
		return 0, "", err
	}
	done, err := pollUntil(ctx, 5*time.Millisecond, r.catchUpTimeout(), "the marker row on the subscriber", markerVisible(subConn, run))
	if err != nil {
		return 0, "", err
	}
	failure, err := compareData(ctx, pubDSN, subDSN, fullEventsChecksum, fmt.Sprintf("REPLICA IDENTITY FULL, index %t, run %d", withIndex, run))
	return done.Sub(start).Seconds(), failure, err
}

// riFullSection reports the trap: both apply times and their ratio, checked
// (at least riFullAtLeast) on PostgreSQL 16 and newer only.
func (m cpuCostMeasurements) riFullSection() Section {
	rows, updates := riFullRows, riFullUpdates
	s := Section{Title: "REPLICA IDENTITY FULL trap"}
	byIndex := map[bool]Row{}
	for _, c := range riFullCases {
		r := NewRow(c.Row, c.Seed, "s", m.RIFull[c.Index])
		s.Rows = append(s.Rows, r)
		byIndex[c.Index] = r
	}
	s.Ratios = []Ratio{riFullRatio(ratioOf(byIndex[true], byIndex[false]), m.Major)}
	s.Notes = []string{
		fmt.Sprintf("%d identical rows on both sides, no primary key, publisher REPLICA IDENTITY FULL; %d updates to the last rows, one per transaction, queued with the subscription disabled; apply time = from the walsender taking the slot until a marker row committed after them (synchronously, so that the WAL writer's delay is not counted) is visible on the subscriber", rows, updates),
		fmt.Sprintf("the ratio is the index time over the no-index time (the seed: 31x faster); on PostgreSQL 16+ the index must make apply at least %.0fx faster", riFullAtLeast),
	}
	return s
}

// riFullRatio checks the speed-up on 16+ and only shows it before 16, where
// the subscriber cannot use the index.
func riFullRatio(measured float64, major int) Ratio {
	if major != 0 && major < 16 {
		return NewRatio(ratioRIFull, riFullSeedRatio, measured, 0, fmt.Sprintf("not comparable: PostgreSQL %d cannot use the index (needs 16)", major))
	}
	r := NewRatio(ratioRIFull, riFullSeedRatio, measured, riFullTolerance, "")
	switch {
	case r.Within():
		r.Verdict = fmt.Sprintf("index %.0fx faster: at least %.0fx, holds", 1/measured, riFullAtLeast)
	case measured > 0 && !math.IsInf(measured, 0):
		r.Verdict = fmt.Sprintf("index only %.1fx faster: below %.0fx", 1/measured, riFullAtLeast)
	}
	return r
}
