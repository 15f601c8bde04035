package reproduce

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/lab/cluster"
	"github.com/lagscope/lagscope/internal/lab/consumer"
	"github.com/lagscope/lagscope/internal/proc"
)

// Seed 001, "the CPU cost of logical replication": the server CPU of one
// insert load with no consumer, with a decoder that throws the changes away,
// and with a subscriber applying them (text, binary, four extra indexes); the
// subscriber's WAL; and the REPLICA IDENTITY FULL trap (rifull.go). The table
// is assembled by cpucost_table.go from the per-run values measured here.

// consumerKind is what reads the publisher's changes in a scenario.
type consumerKind int

const (
	noConsumer    consumerKind = iota // publisher only, wal_level = logical
	decodeDevNull                     // a pgoutput slot read by consumer.Consumer
	applySub                          // a subscription on a second cluster
)

// cpuScenario is one row group of seed 001's main table.
type cpuScenario struct {
	Name         string // prefix of the row names, e.g. "apply text, PK only"
	Consumer     consumerKind
	Binary       bool // subscription binary = true
	ExtraIndexes bool // four secondary indexes on the subscriber's events
	Seed         cpuSeed
}

// cpuSeed holds the seed's figures for a scenario, as published.
type cpuSeed struct {
	Pub, Sub, Total, VsBase, Drain string
	WAL                            string // subscriber WAL, MiB ("" without a subscriber)
}

// cpuScenarios are seed 001's five scenarios, baseline first.
var cpuScenarios = []cpuScenario{
	{Name: "no consumer", Consumer: noConsumer,
		Seed: cpuSeed{Pub: "4.71", Sub: "0", Total: "4.71", VsBase: "1.00", Drain: "0.03"}},
	{Name: "decode to /dev/null", Consumer: decodeDevNull,
		Seed: cpuSeed{Pub: "7.92", Sub: "0", Total: "7.92", VsBase: "1.68", Drain: "4.35"}},
	{Name: "apply text, PK only", Consumer: applySub,
		Seed: cpuSeed{Pub: "7.69", Sub: "2.94", Total: "10.62", VsBase: "2.25", Drain: "2.49", WAL: "136.8"}},
	{Name: "apply binary, PK only", Consumer: applySub, Binary: true,
		Seed: cpuSeed{Pub: "7.74", Sub: "2.64", Total: "10.50", VsBase: "2.23", Drain: "2.12", WAL: "136.8"}},
	{Name: "apply text, 4 extra indexes", Consumer: applySub, ExtraIndexes: true,
		Seed: cpuSeed{Pub: "6.09", Sub: "4.66", Total: "10.71", VsBase: "2.27", Drain: "3.60", WAL: "271.7"}},
}

// The load: 8 clients, transactions of 25 inserted rows with a 128-character
// payload; ids from a sequence that exists on the publisher only.
const (
	cpuClients      = 8
	cpuJobs         = 2
	cpuRowsPerTxn   = 25
	cpuTransactions = 20000 // in total; 2,000 with --quick
	cpuDatabase     = "lab"
	cpuPublication  = "cpu_pub"
	cpuSlotDevNull  = "cpu_devnull"
	cpuSubscription = "cpu_sub"
)

const eventsDDL = `CREATE TABLE events (
    id          bigint PRIMARY KEY,
    account_id  integer NOT NULL,
    status      smallint NOT NULL,
    payload     text NOT NULL,
    updated_at  timestamptz NOT NULL
)`

// extraIndexesDDL are the subscriber's four extra indexes.
var extraIndexesDDL = []string{
	"CREATE INDEX events_account_id_idx ON events (account_id)",
	"CREATE INDEX events_status_idx ON events (status)",
	"CREATE INDEX events_updated_at_idx ON events (updated_at)",
	"CREATE INDEX events_account_updated_idx ON events (account_id, updated_at)",
}

// insertScript is one pgbench transaction: 25 rows in one INSERT.
const insertScript = `INSERT INTO events (id, account_id, status, payload, updated_at)
SELECT nextval('events_id_seq'), 1 + (random() * 99999)::integer, (random() * 4)::smallint,
       repeat(md5(random()::text), 4), clock_timestamp()
FROM generate_series(1, 25);
`

// eventsChecksum digests events; equal on both sides means the same rows.
const eventsChecksum = `SELECT /* lagscope */ count(*) || '/' || coalesce(sum(id), 0) || '/' || coalesce(sum(account_id), 0)
    || '/' || coalesce(sum(status), 0) || '/' || coalesce(sum(hashtext(payload)), 0)
    || '/' || coalesce(sum(hashtext(updated_at::text)), 0) FROM events`

// cpuRun is what one run of one scenario measured.
type cpuRun struct {
	PubCPU, SubCPU float64 // server CPU from the load's start until caught up, s
	Drain          float64 // from pgbench's end until caught up, s
	// SubWAL is the subscriber's WAL over the same window, MiB (NaN without
	// a subscriber); WALSource says where it was read.
	SubWAL    float64
	WALSource string
}

// cpuCost runs the experiment; it keeps the server version seen first.
type cpuCost struct {
	o       Options
	cpu     cpuReader
	owner   cluster.Owner
	version string // SHOW server_version of the first publisher
	major   int
}

// runCPUCost reruns seed 001 (see Experiments).
func runCPUCost(ctx context.Context, o Options) (*Table, error) {
	fs, err := proc.NewFS("")
	if err != nil {
		return nil, err
	}
	owner, err := cluster.DefaultOwner()
	if err != nil {
		return nil, err
	}
	r := &cpuCost{o: o, cpu: fs, owner: owner}
	m := cpuCostMeasurements{Runs: o.Runs, Quick: o.Quick, PubCPUs: o.PubCPUs, SubCPUs: o.SubCPUs,
		Scenarios: map[string][]cpuRun{}, RIFull: map[bool][]float64{}}
	for run := 1; run <= o.Runs; run++ {
		for _, sc := range cpuScenarios {
			o.logf("cpu-cost run %d/%d: %s", run, o.Runs, sc.Name)
			res, failure, err := r.scenario(ctx, sc, run)
			if err != nil {
				return nil, fmt.Errorf("cpu-cost %s, run %d: %w", sc.Name, run, err)
			}
			o.logf("cpu-cost run %d/%d: %s: publisher %.2f s, subscriber %.2f s CPU, drain %.2f s, subscriber WAL %.1f MiB",
				run, o.Runs, sc.Name, res.PubCPU, res.SubCPU, res.Drain, res.SubWAL)
			m.Scenarios[sc.Name] = append(m.Scenarios[sc.Name], res)
			m.addFailure(failure)
		}
		for _, withIndex := range []bool{false, true} {
			o.logf("cpu-cost run %d/%d: REPLICA IDENTITY FULL, subscriber index on id: %t", run, o.Runs, withIndex)
			s, failure, err := r.riFull(ctx, withIndex, run)
			if err != nil {
				return nil, fmt.Errorf("cpu-cost REPLICA IDENTITY FULL (index %t), run %d: %w", withIndex, run, err)
			}
			o.logf("cpu-cost run %d/%d: REPLICA IDENTITY FULL, index %t: apply %.3f s", run, o.Runs, withIndex, s)
			m.RIFull[withIndex] = append(m.RIFull[withIndex], s)
			m.addFailure(failure)
		}
	}
	m.Major = r.major
	t := m.table()
	t.ServerVersion = r.version
	return t, nil
}

// catchUpTimeout bounds every wait for a consumer to catch up.
func (r *cpuCost) catchUpTimeout() time.Duration {
	if r.o.Quick {
		return 3 * time.Minute
	}
	return 10 * time.Minute
}

// newLab makes a lab with a publisher and, when withSub, a subscriber, and
// reads the server version once. The caller closes the lab.
func (r *cpuCost) newLab(ctx context.Context, purpose string, withSub bool) (l *cluster.Lab, pub, sub *cluster.Cluster, err error) {
	l, err = cluster.NewLab("", "lab reproduce cpu-cost: "+purpose, r.owner)
	if err != nil {
		return nil, nil, nil, err
	}
	defer func() {
		if err != nil {
			l.Close()
		}
	}()
	if pub, err = startCluster(ctx, l, "publisher", r.o.Bin, r.o.PubCPUs, nil); err != nil {
		return
	}
	if withSub {
		if sub, err = startCluster(ctx, l, "subscriber", r.o.Bin, r.o.SubCPUs, nil); err != nil {
			return
		}
	}
	for _, c := range []*cluster.Cluster{pub, sub} {
		if c != nil {
			if err = lab.Exec(ctx, c.ConnString("postgres"), "CREATE DATABASE "+cpuDatabase); err != nil {
				return
			}
		}
	}
	if r.version == "" {
		if r.version, r.major, err = serverVersion(ctx, pub.ConnString(cpuDatabase)); err != nil {
			return
		}
	}
	return l, pub, sub, nil
}

// scenario runs one scenario on fresh clusters and returns its measurements
// and a failure line ("" when the data matched).
func (r *cpuCost) scenario(ctx context.Context, sc cpuScenario, run int) (cpuRun, string, error) {
	res := cpuRun{SubWAL: math.NaN()}
	l, pub, sub, err := r.newLab(ctx, sc.Name, sc.Consumer == applySub)
	if err != nil {
		return res, "", err
	}
	defer l.Close()
	pubDSN := pub.ConnString(cpuDatabase)
	if err := lab.Exec(ctx, pubDSN, "CREATE SEQUENCE events_id_seq", eventsDDL, markerDDL,
		fmt.Sprintf("CREATE PUBLICATION %s FOR TABLE events, lagscope_marker", cpuPublication)); err != nil {
		return res, "", fmt.Errorf("publisher: %w", err)
	}
	var subDSN string
	var dn *consumer.Consumer
	switch sc.Consumer {
	case decodeDevNull:
		if err := lab.Exec(ctx, pubDSN, fmt.Sprintf("SELECT pg_create_logical_replication_slot('%s', 'pgoutput')", cpuSlotDevNull)); err != nil {
			return res, "", fmt.Errorf("publisher: %w", err)
		}
		if dn, err = consumer.Start(ctx, pubDSN, cpuSlotDevNull, cpuPublication, consumer.Options{}); err != nil {
			return res, "", err
		}
		defer dn.Close()
		if err := r.waitSlotActive(ctx, pubDSN, cpuSlotDevNull); err != nil {
			return res, "", err
		}
	case applySub:
		subDSN = sub.ConnString(cpuDatabase)
		stmts := []string{eventsDDL, markerDDL}
		if sc.ExtraIndexes {
			stmts = append(stmts, extraIndexesDDL...)
		}
		stmts = append(stmts, fmt.Sprintf("CREATE SUBSCRIPTION %s CONNECTION '%s' PUBLICATION %s WITH (copy_data = false, binary = %t)",
			cpuSubscription, pubDSN, cpuPublication, sc.Binary))
		if err := lab.Exec(ctx, subDSN, stmts...); err != nil {
			return res, "", fmt.Errorf("subscriber: %w", err)
		}
		if err := r.waitSlotActive(ctx, pubDSN, cpuSubscription); err != nil {
			return res, "", err
		}
	}

	// Connections used inside the measured window are opened before it.
	markConn, err := pgx.Connect(ctx, pubDSN)
	if err != nil {
		return res, "", fmt.Errorf("connect to publisher: %w", err)
	}
	defer markConn.Close(context.Background())
	var pollConn *pgx.Conn
	var wal0 string
	if sub != nil {
		if pollConn, err = pgx.Connect(ctx, subDSN); err != nil {
			return res, "", fmt.Errorf("connect to subscriber: %w", err)
		}
		defer pollConn.Close(context.Background())
		if wal0, err = resetWAL(ctx, pollConn); err != nil {
			return res, "", fmt.Errorf("subscriber: %w", err)
		}
	}

	cpu0, err := serverCPU(r.cpu, pub, sub)
	if err != nil {
		return res, "", err
	}
	txns := cpuTransactions
	if r.o.Quick {
		txns /= 10
	}
	end, err := pgbenchRun{PGBench: r.o.PGBench, Target: pub, DB: cpuDatabase, Script: insertScript,
		Clients: cpuClients, Jobs: cpuJobs, Transactions: txns / cpuClients, CPUs: r.o.PubCPUs}.run(ctx)
	if err != nil {
		return res, "", err
	}
	markerLSN, err := insertMarker(ctx, markConn, run)
	if err != nil {
		return res, "", fmt.Errorf("publisher: %w", err)
	}
	caught := time.Now()
	switch sc.Consumer {
	case decodeDevNull:
		caught, err = dn.WaitCommitAfter(ctx, markerLSN, r.catchUpTimeout())
	case applySub:
		caught, err = pollUntil(ctx, 10*time.Millisecond, r.catchUpTimeout(), "the marker row on the subscriber", markerVisible(pollConn, run))
	}
	if err != nil {
		return res, "", err
	}
	cpu1, err := serverCPU(r.cpu, pub, sub)
	if err != nil {
		return res, "", err
	}
	res.PubCPU = (cpu1[0] - cpu0[0]).Seconds()
	res.SubCPU = (cpu1[1] - cpu0[1]).Seconds()
	res.Drain = caught.Sub(end).Seconds()
	if sub == nil {
		return res, "", nil
	}
	bytes, source, err := subscriberWAL(ctx, pollConn, wal0)
	if err != nil {
		return res, "", fmt.Errorf("subscriber WAL: %w", err)
	}
	res.SubWAL, res.WALSource = float64(bytes)/(1<<20), source
	failure, err := compareData(ctx, pubDSN, subDSN, eventsChecksum, fmt.Sprintf("%s, run %d", sc.Name, run))
	return res, failure, err
}

// waitSlotActive waits until a walsender streams slot.
func (r *cpuCost) waitSlotActive(ctx context.Context, pubDSN, slot string) error {
	q := fmt.Sprintf("SELECT /* lagscope */ active FROM pg_replication_slots WHERE slot_name = '%s'", slot)
	_, err := pollUntil(ctx, 50*time.Millisecond, time.Minute, "a walsender on slot "+slot, queryTrue(pubDSN, q))
	return err
}

// resetWAL zeroes pg_stat_wal and returns the current WAL insert position.
func resetWAL(ctx context.Context, conn *pgx.Conn) (string, error) {
	if _, err := conn.Exec(ctx, "SELECT /* lagscope */ pg_stat_reset_shared('wal')"); err != nil {
		return "", fmt.Errorf("reset pg_stat_wal: %w", err)
	}
	var lsn string
	err := conn.QueryRow(ctx, "SELECT /* lagscope */ pg_current_wal_insert_lsn()::text").Scan(&lsn)
	return lsn, err
}

// subscriberWAL returns the WAL written since resetWAL: pg_stat_wal's
// wal_bytes once the writers' statistics have been flushed, else the WAL
// position difference from lsn0. The apply worker flushes its statistics at
// most once a second while busy (right after catching up, pg_stat_wal can
// show a tenth of the total), so wal_bytes counts once it is close to the
// position difference (record padding and page headers make that 2-3% more)
// and has stopped moving.
func subscriberWAL(ctx context.Context, conn *pgx.Conn, lsn0 string) (int64, string, error) {
	var diff int64
	if err := conn.QueryRow(ctx, "SELECT /* lagscope */ pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::pg_lsn)::bigint", lsn0).Scan(&diff); err != nil {
		return 0, "", err
	}
	stat, last := int64(-1), int64(-1)
	_, err := pollUntil(ctx, 500*time.Millisecond, 5*time.Second, "pg_stat_wal", func(ctx context.Context) (bool, error) {
		last = stat
		if err := conn.QueryRow(ctx, "SELECT /* lagscope */ wal_bytes::bigint FROM pg_stat_wal").Scan(&stat); err != nil {
			return false, err
		}
		return stat == last && float64(stat) >= 0.9*float64(diff), nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return 0, "", ctx.Err()
		}
		return diff, walFromLSN, nil
	}
	return stat, walFromStats, nil
}

// Where a subscriber WAL figure comes from.
const (
	walFromStats = "pg_stat_wal"
	walFromLSN   = "WAL position difference"
)
