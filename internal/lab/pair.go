package lab

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/lab/cluster"
	"github.com/lagscope/lagscope/internal/lab/consumer"
	"github.com/lagscope/lagscope/internal/lab/proxy"
	"github.com/lagscope/lagscope/internal/units"
)

// Database is the database the lab replicates on both clusters.
const Database = "lab"

// PairOptions describe a publisher/subscriber pair to build.
type PairOptions struct {
	// TLS gives both servers a certificate for localhost and 127.0.0.1 from
	// a throwaway CA (Pair.CAFile): ConnString then reaches them over TCP
	// with sslmode=verify-full.
	TLS bool
	// TCP makes both servers listen on 127.0.0.1 as well, where the
	// superuser needs the password in the server's passfile
	// (cluster.Options.TCP); ConnString keeps the socket. TLS implies it.
	TCP     bool
	Bin     string // server binaries (initdb, postgres)
	Base    string // lab base directory ("" = cluster.BaseDir())
	Purpose string // written into the lab marker
	PubCPUs []int  // CPUs of the publisher and its pgbench
	SubCPUs []int  // CPUs of the subscriber
	Rows    int    // rows in the hot table
	Layout  Layout
	// RowFilter is a publication row filter for the flat layout ("" = none).
	RowFilter string
	// Link routes the subscriptions through a rate-limited proxy when true;
	// LinkRate is its rate (0 = unlimited).
	Link     bool
	LinkRate units.ByteRate
	// SubIndexes adds secondary indexes to the subscriber's table only.
	SubIndexes int
	// ReplicaIdentityFull sets REPLICA IDENTITY FULL on the publisher's
	// table (the primary key stays on both sides).
	ReplicaIdentityFull bool
	// SubNoKey drops the primary key of the subscriber's table only, so no
	// index there can find a row (with ReplicaIdentityFull: a sequential
	// scan per replicated UPDATE or DELETE). SubIndexes still apply.
	SubNoKey bool
	// MinMajor refuses servers older than this major version (0 = any),
	// for scenarios that need a newer feature.
	MinMajor int
	// Needs names the feature MinMajor is for, in the refusal.
	Needs string
	// CopyData leaves the subscriber's table empty and creates the
	// subscriptions with copy_data = true (an initial table copy).
	CopyData bool
	// PubSettings and SubSettings override server settings.
	PubSettings, SubSettings map[string]string
	// WaitSampling loads pg_wait_sampling on both servers and creates the
	// extension in the lab's database, so diagnose reads wait events from
	// its history (the extension's library must be installed for the
	// server's version: Debian's postgresql-15-pg-wait-sampling).
	WaitSampling bool
	// SubCPULimit caps the subscriber's server at this many CPUs with a
	// cgroup quota (0 = none); see cpuLimit.
	SubCPULimit float64
	// SubReadLimit caps the subscriber's reads from its disk at this many
	// bytes/s with a cgroup (0 = none), from when its data is loaded.
	SubReadLimit int64
	// PubReadLimit caps the publisher's reads from its disk at this many
	// bytes/s with a cgroup (0 = none); see readLimit.
	PubReadLimit int64
	// Binary and Streaming are subscription options (seed 000: true, "on").
	Binary    bool
	Streaming string
	// Log receives progress lines (nil = discard).
	Log io.Writer
}

// Pair is a running publisher/subscriber pair with its subscriptions created
// but disabled.
type Pair struct {
	Lab   *cluster.Lab
	Pub   *cluster.Cluster
	Sub   *cluster.Cluster
	Proxy *proxy.Proxy // nil without a link
	// Subscriptions are the subscription names; each one's slot has the same name.
	Subscriptions []string
	Opts          PairOptions
	// CAFile is the certificate of the CA that signed the servers'
	// certificates (with Opts.TLS; "" without).
	CAFile string
	// lock is the subscriber session holding a table lock (nil = none).
	lock *lockHolder
	hogs *hogs
	// osHogs are busy-loop processes outside PostgreSQL (nil = none).
	osHogs *osHogs
	// open is the publisher session holding a transaction open (nil = none).
	open *openTxn
	// limit is the subscriber's CPU-limit cgroup (nil = none).
	limit *cpuLimit
	// consumer is the lab's client consumer of ConsumerSlot (nil = none).
	consumer *consumer.Consumer
	// standby is the subscriber's synchronous standby (nil = none).
	standby *syncStandby
	// physical is the publisher's physical standby (nil = none).
	physical *Standby
	// readLimit is the publisher's disk-read-limit cgroup, subReadLimit
	// the subscriber's (nil = none).
	readLimit, subReadLimit *readLimit
	// evictor keeps the subscriber's data out of the page cache (nil =
	// none).
	evictor *cacheEvictor
	// held is the steps the pair holds, oldest first (liftAll lifts them).
	held []Step
}

// NewPair builds a pair. On error everything made so far is removed.
func NewPair(ctx context.Context, o PairOptions) (p *Pair, err error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	owner, err := cluster.DefaultOwner()
	if err != nil {
		return nil, err
	}
	l, err := cluster.NewLab(o.Base, o.Purpose, owner)
	if err != nil {
		return nil, err
	}
	p = &Pair{Lab: l, Opts: o}
	defer func() {
		if err != nil {
			p.Close()
			p = nil
		}
	}()
	if o.WaitSampling {
		if err := waitSamplingSettings(&o); err != nil {
			return p, err
		}
		p.Opts = o
	}
	fmt.Fprintf(o.Log, "lab: creating publisher (CPUs %v) and subscriber (CPUs %v) in %s\n", o.PubCPUs, o.SubCPUs, l.Dir)
	if p.Pub, err = l.Create(ctx, cluster.Options{Name: "publisher", Bin: o.Bin, CPUs: o.PubCPUs, Settings: o.PubSettings, TCP: o.TCP}); err != nil {
		return p, err
	}
	if err = checkRowFilter(p.Pub.DataDir, o.RowFilter); err != nil {
		return p, err
	}
	if err = checkMajor(p.Pub.DataDir, o.MinMajor, o.Needs); err != nil {
		return p, err
	}
	if p.Sub, err = l.Create(ctx, cluster.Options{Name: "subscriber", Bin: o.Bin, CPUs: o.SubCPUs, Settings: o.SubSettings, TCP: o.TCP}); err != nil {
		return p, err
	}
	if o.TLS {
		if err = p.giveCertificates(); err != nil {
			return p, err
		}
	}
	if err = p.both(func(c *cluster.Cluster) error { return c.Start(ctx) }); err != nil {
		return p, err
	}
	if o.SubCPULimit > 0 {
		if p.limit, err = newCPULimit(filepath.Base(l.Dir), o.SubCPULimit); err != nil {
			return p, err
		}
	}
	if o.PubReadLimit > 0 {
		if p.readLimit, err = newReadLimit(filepath.Base(l.Dir), p.Pub.DataDir, o.PubReadLimit); err != nil {
			return p, err
		}
		if err = p.readLimit.add(p.Pub.PID()); err != nil {
			return p, err
		}
		fmt.Fprintf(o.Log, "lab: the publisher's server runs in cgroup %s, reading from disk %s at most %s\n", p.readLimit.dir, p.readLimit.dev, units.ByteRate(o.PubReadLimit))
	}
	// The link is a unix-socket relay, so that what the walsender pays per
	// byte is what it pays without the link (over loopback TCP the kernel
	// charges the receiving side's work to the sender's CPU as softirq time).
	via := ""
	if o.Link {
		linkDir := filepath.Join(l.Dir, "link")
		upstream := fmt.Sprintf("%s/.s.PGSQL.%d", p.Pub.SocketDir, p.Pub.Port)
		if p.Proxy, err = p.startLink(ctx, linkDir, upstream, p.Pub.Port, o.LinkRate); err != nil {
			return p, fmt.Errorf("start link proxy: %w", err)
		}
		via = linkDir
		fmt.Fprintf(o.Log, "lab: subscriber connects through a %s link (%s -> %s)\n", o.LinkRate, p.Proxy.Addr(), upstream)
	}
	fmt.Fprintf(o.Log, "lab: loading %d rows (%s layout) on both sides\n", o.Rows, o.Layout)
	if err = p.setup(ctx, via); err != nil {
		return p, err
	}
	if o.SubReadLimit > 0 {
		if o.PubReadLimit > 0 {
			return p, fmt.Errorf("the lab caps the disk reads of one server per pair, not both")
		}
		if p.subReadLimit, err = newReadLimit(filepath.Base(l.Dir), p.Sub.DataDir, o.SubReadLimit); err != nil {
			return p, err
		}
		if err = p.subReadLimit.add(p.Sub.PID()); err != nil {
			return p, err
		}
		fmt.Fprintf(o.Log, "lab: the subscriber's server runs in cgroup %s, reading from disk %s at most %s\n", p.subReadLimit.dir, p.subReadLimit.dev, units.ByteRate(o.SubReadLimit))
	}
	if p.limit != nil {
		// The postmaster joins the cgroup once the data is loaded (at
		// full speed) and before any subscription runs: the apply
		// workers it forks later are born there.
		if err = p.limit.add(p.Sub.PID()); err != nil {
			return p, err
		}
		fmt.Fprintf(o.Log, "lab: the subscriber's server runs in cgroup %s, limited to %.2f CPU\n", p.limit.dir, o.SubCPULimit)
	}
	return p, nil
}

// both runs f for the publisher and the subscriber at the same time (each
// server runs on its own CPUs) and returns the publisher's error, else the
// subscriber's.
func (p *Pair) both(f func(c *cluster.Cluster) error) error {
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, c := range []*cluster.Cluster{p.Pub, p.Sub} {
		wg.Go(func() { errs[i] = f(c) })
	}
	wg.Wait()
	return cmp.Or(errs...)
}

func (p *Pair) setup(ctx context.Context, via string) error {
	if err := p.both(func(c *cluster.Cluster) error { return p.fillTable(ctx, c) }); err != nil {
		return err
	}
	return p.replicate(ctx, via)
}

// fillTable creates the lab's database on c with its table, filled unless c is
// the subscriber of an initial copy.
func (p *Pair) fillTable(ctx context.Context, c *cluster.Cluster) error {
	if err := Exec(ctx, c.ConnString("postgres"), "CREATE DATABASE "+Database); err != nil {
		return err
	}
	stmts := tableDDL(p.Opts.Layout)
	if p.Opts.WaitSampling {
		stmts = append(stmts, "CREATE EXTENSION pg_wait_sampling")
	}
	if c == p.Pub || !p.Opts.CopyData {
		stmts = append(stmts, fillSQL(p.Opts.Rows))
	}
	if c == p.Sub {
		if p.Opts.SubNoKey {
			stmts = append(stmts, "ALTER TABLE hot DROP CONSTRAINT hot_pkey")
		}
		stmts = append(stmts, subIndexDDL(p.Opts.SubIndexes, "CREATE INDEX")...)
	}
	if c == p.Pub && p.Opts.ReplicaIdentityFull {
		stmts = append(stmts, replicaIdentityFullDDL(p.Opts.Layout)...)
	}
	stmts = append(stmts, "VACUUM ANALYZE hot")
	if err := Exec(ctx, c.ConnString(Database), stmts...); err != nil {
		return fmt.Errorf("%s: %w", c.Name, err)
	}
	return nil
}

// replicate creates the publications and the (disabled) subscriptions to
// them, through the link's socket directory via when not "".
func (p *Pair) replicate(ctx context.Context, via string) error {
	pubs := publications(p.Opts.Layout, p.Opts.RowFilter)
	names := make([]string, 0, len(pubs))
	for n := range pubs {
		names = append(names, n)
	}
	sort.Strings(names)
	var stmts []string
	for _, n := range names {
		stmts = append(stmts, pubs[n])
	}
	if err := Exec(ctx, p.Pub.ConnString(Database), stmts...); err != nil {
		return fmt.Errorf("publisher: %w", err)
	}
	// Over the unix socket like seed 000's lab, or the link's socket.
	conninfo := p.Pub.ConnString(Database)
	if via != "" {
		conninfo = fmt.Sprintf("host=%s port=%d user=%s dbname=%s", via, p.Pub.Port, cluster.Superuser, Database)
	}
	streaming := p.Opts.Streaming
	if streaming == "" {
		streaming = "on"
	}
	stmts = nil
	for _, n := range names {
		sub := subscriptionName(n)
		p.Subscriptions = append(p.Subscriptions, sub)
		stmts = append(stmts, fmt.Sprintf("CREATE SUBSCRIPTION %s CONNECTION '%s' PUBLICATION %s WITH (copy_data = %t, enabled = false, binary = %t, streaming = %s, slot_name = %s)",
			sub, conninfo, n, p.Opts.CopyData, p.Opts.Binary, streaming, sub))
	}
	if err := Exec(ctx, p.Sub.ConnString(Database), stmts...); err != nil {
		return fmt.Errorf("subscriber: %w", err)
	}
	return nil
}

// SetEnabled enables or disables every subscription of the pair.
func (p *Pair) SetEnabled(ctx context.Context, on bool) error {
	verb := "DISABLE"
	if on {
		verb = "ENABLE"
	}
	var stmts []string
	for _, s := range p.Subscriptions {
		stmts = append(stmts, "ALTER SUBSCRIPTION "+s+" "+verb)
	}
	return Exec(ctx, p.Sub.ConnString(Database), stmts...)
}

// Close removes the pair: proxy, servers, directories.
func (p *Pair) Close() error {
	if p == nil {
		return nil
	}
	p.liftAll()
	p.closeStandbyLink()
	p.closePhysical()
	if p.Proxy != nil {
		p.Proxy.Close()
	}
	err := p.Lab.Close()
	// After the servers stopped: the cgroup is empty then.
	if lerr := p.limit.remove(); err == nil {
		err = lerr
	}
	if lerr := p.readLimit.remove(); err == nil {
		err = lerr
	}
	if lerr := p.subReadLimit.remove(); err == nil {
		err = lerr
	}
	return err
}

// Exec runs statements in order on one connection to dsn.
func Exec(ctx context.Context, dsn string, stmts ...string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.Background())
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", firstWords(s), err)
		}
	}
	return nil
}

// Query runs a query returning one value of type T (30 s at most).
func Query[T any](ctx context.Context, dsn, q string) (T, error) {
	var v T
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(cctx, dsn)
	if err != nil {
		return v, err
	}
	defer conn.Close(context.Background())
	err = conn.QueryRow(cctx, q).Scan(&v)
	return v, err
}

func firstWords(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}

// checkRowFilter refuses a publication row filter on a server older than
// 15, which has none, with a message that says what to use instead.
func checkRowFilter(dataDir, filter string) error {
	if filter == "" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(dataDir, "PG_VERSION"))
	if err != nil {
		return err
	}
	if major, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && major < 15 {
		return fmt.Errorf("this scenario uses a publication row filter, which PostgreSQL %d does not have: use --pg-version 15 or later", major)
	}
	return nil
}

// checkMajor refuses a server older than min for a scenario that needs
// what (a feature of min+).
func checkMajor(dataDir string, min int, what string) error {
	if min == 0 {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(dataDir, "PG_VERSION"))
	if err != nil {
		return err
	}
	if major, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && major < min {
		return fmt.Errorf("this scenario uses %s, which PostgreSQL %d does not have: use --pg-version %d or later", what, major, min)
	}
	return nil
}
