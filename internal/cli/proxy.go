package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/lagscope/lagscope/internal/proc"
	"github.com/lagscope/lagscope/internal/proxy"
	"github.com/lagscope/lagscope/internal/units"
	"github.com/spf13/cobra"
)

// proxyOptions are the flags of 'lagscope proxy'.
type proxyOptions struct {
	listen      string
	upstream    string
	rate        units.ByteRate
	reportEvery time.Duration

	bench         bool
	benchDuration time.Duration
	benchRates    []string
	benchRepeat   int
	json          bool

	// changed records which flags the user gave, filled in before Validate.
	changed func(name string) bool
}

// relayOnly and benchOnly are the flags that make sense in one mode only.
var (
	relayOnly = []string{"listen", "upstream", "report-every"}
	benchOnly = []string{"bench-duration", "bench-rates", "bench-repeat", "json"}
)

func (o *proxyOptions) bind(c *cobra.Command) {
	fl := c.Flags()
	fl.StringVar(&o.listen, "listen", "", "address clients connect to, host:port (e.g. 127.0.0.1:6432)")
	fl.StringVar(&o.upstream, "upstream", "", "address to relay to, host:port (e.g. 127.0.0.1:5432)")
	fl.Var(&o.rate, "rate", "limit per direction for the whole link: 500kB/s, 8MB/s, 100Mbit/s, 8MiB/s or unlimited")
	fl.DurationVar(&o.reportEvery, "report-every", 5*time.Second, "print the achieved rate this often (0 = never)")
	fl.BoolVar(&o.bench, "bench", false, "measure the relay on 127.0.0.1 instead of relaying")
	fl.DurationVar(&o.benchDuration, "bench-duration", 10*time.Second, "measured window of each bench run")
	fl.StringSliceVar(&o.benchRates, "bench-rates", nil, "bench several rates in turn, e.g. 1MB/s,8MB/s,unlimited")
	fl.IntVar(&o.benchRepeat, "bench-repeat", 1, "runs per rate; the report shows the median and the spread")
	fl.BoolVar(&o.json, "json", false, "print the bench report as JSON")
}

// Validate checks the combination of flags; errors are usage errors.
func (o *proxyOptions) Validate() error {
	changed := o.changed
	if changed == nil {
		changed = func(string) bool { return false }
	}
	if o.bench {
		for _, f := range relayOnly {
			if changed(f) {
				return Usagef("--%s does not apply to --bench, which runs its own sink and proxy on 127.0.0.1: drop it", f)
			}
		}
		if o.benchDuration <= 0 {
			return Usagef("--bench-duration %s must be positive, e.g. 10s", o.benchDuration)
		}
		if o.benchRepeat < 1 {
			return Usagef("--bench-repeat %d must be at least 1", o.benchRepeat)
		}
		if changed("rate") && len(o.benchRates) > 0 {
			return Usagef("give either --rate or --bench-rates, not both")
		}
		if _, err := o.rates(); err != nil {
			return err
		}
		return nil
	}
	for _, f := range benchOnly {
		if changed(f) {
			return Usagef("--%s only applies with --bench: add --bench, or drop it", f)
		}
	}
	if o.listen == "" {
		return Usagef("--listen is required: the address clients connect to, e.g. --listen 127.0.0.1:6432")
	}
	if o.upstream == "" {
		return Usagef("--upstream is required: the server to relay to, e.g. --upstream 127.0.0.1:5432")
	}
	if o.reportEvery < 0 {
		return Usagef("--report-every %s is negative: use e.g. 5s, or 0 to turn reports off", o.reportEvery)
	}
	if err := o.proxyOptions().Validate(); err != nil {
		return Usage(err)
	}
	return nil
}

// rates lists the rates to bench: --bench-rates, else --rate.
func (o *proxyOptions) rates() ([]units.ByteRate, error) {
	if len(o.benchRates) == 0 {
		return []units.ByteRate{o.rate}, nil
	}
	var out []units.ByteRate
	for _, s := range o.benchRates {
		r, err := units.ParseByteRate(s)
		if err != nil {
			return nil, Usagef("--bench-rates: %v", err)
		}
		out = append(out, r)
	}
	return out, nil
}

func (o *proxyOptions) proxyOptions() proxy.Options {
	return proxy.Options{Listen: o.listen, Upstream: o.upstream, Rate: o.rate}
}

func newProxyCmd() *cobra.Command {
	o := &proxyOptions{}
	c := &cobra.Command{
		Use:   "proxy --listen ADDR --upstream ADDR [--rate RATE] | --bench [--rate RATE | --bench-rates R1,R2,...]",
		Short: "Relay TCP through a bandwidth-limited link, or measure how well the limit holds",
		Long: `proxy relays TCP connections from --listen to --upstream and limits the
bandwidth of the link: --rate applies to each direction separately and is
shared by all connections, like a real network link (four connections at
8MB/s get 8MB/s together, not 32MB/s). Point a subscription's connection
string at --listen to put a slow network between publisher and subscriber.

Rates: 500kB/s, 8MB/s and 1GB/s are powers of 1000; 8MiB/s powers of 1024;
100Mbit/s (or 100Mb/s, 100Mbps) is bits, so 12.5MB/s. "unlimited" or 0 turns
the limit off (the default).

The proxy runs in the foreground until Ctrl-C and prints the achieved rate per
direction every --report-every. "down" is upstream -> client (for a
subscription: the WAL the publisher sends), "up" is client -> upstream.

--bench measures the relay on this machine (127.0.0.1 only, nothing leaves the
host): a sink server, a proxy in front of it and a client pushing data for
--bench-duration. With a rate it prints the target, the measured rate and the
error; unlimited it also measures a direct connection and prints the ratio.
See docs/proxy.md for how the limit works and measured results.`,
		Example: `  # An 8MB/s link in front of a local publisher
  lagscope proxy --listen 127.0.0.1:6432 --upstream 127.0.0.1:5432 --rate 8MB/s

  # A 100 Mbit/s link, quiet
  lagscope proxy --listen :6432 --upstream db1:5432 --rate 100Mbit/s --report-every 0

  # How close does the proxy keep to 8MB/s on this machine?
  lagscope proxy --bench --rate 8MB/s

  # What does the relay cost unlimited, compared with a direct connection?
  lagscope proxy --bench --bench-repeat 3

  # A table over several rates, three 10 s runs each, as JSON
  lagscope proxy --bench --bench-rates 1MB/s,8MB/s,100MB/s,unlimited --bench-repeat 3 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.changed = cmd.Flags().Changed
			if err := o.Validate(); err != nil {
				return err
			}
			if o.bench {
				return runProxyBench(cmd, o)
			}
			return runProxy(cmd, o)
		},
	}
	o.bind(c)
	return c
}

// runProxy relays in the foreground until the command's context is done.
func runProxy(cmd *cobra.Command, o *proxyOptions) error {
	ctx := cmd.Context()
	out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
	po := o.proxyOptions()
	po.OnError = func(err error) { fmt.Fprintf(errOut, "proxy: %v\n", err) }
	p, err := proxy.Start(ctx, po)
	if err != nil {
		return Usage(err)
	}
	defer p.Close()
	fmt.Fprintf(out, "proxy: listening on %s, relaying to %s, rate %s per direction (shared by all connections); Ctrl-C stops\n",
		p.Addr(), o.upstream, describeRate(o.rate))

	var tick <-chan time.Time
	if o.reportEvery > 0 {
		t := time.NewTicker(o.reportEvery)
		defer t.Stop()
		tick = t.C
	}
	prev, prevAt := p.Stats(), time.Now()
	for {
		select {
		case <-ctx.Done():
			s := p.Stats()
			fmt.Fprintf(out, "proxy: stopped; relayed %s down, %s up over %d connection(s)\n",
				units.FormatBytes(float64(s.Downstream)), units.FormatBytes(float64(s.Upstream)), s.Conns)
			return nil
		case now := <-tick:
			cur := p.Stats()
			fmt.Fprintln(out, reportLine(prev, cur, now.Sub(prevAt)))
			prev, prevAt = cur, now
		}
	}
}

// describeRate prints a rate for the start line, with its bit rate.
func describeRate(r units.ByteRate) string {
	if r == 0 {
		return "unlimited"
	}
	return fmt.Sprintf("%s (%.4g Mbit/s)", r, float64(r)*8/1e6)
}

// reportLine is the periodic report: the rate per direction between two
// snapshots taken elapsed apart, and the connections.
func reportLine(prev, cur proxy.Stats, elapsed time.Duration) string {
	sec := elapsed.Seconds()
	rate := func(a, b uint64) float64 {
		if sec <= 0 || b < a {
			return 0
		}
		return units.MBPerSecond(float64(b-a) / sec)
	}
	line := fmt.Sprintf("proxy: down %.2f MB/s, up %.2f MB/s over %.0fs; %d connection(s) open, %d total",
		rate(prev.Downstream, cur.Downstream), rate(prev.Upstream, cur.Upstream), sec, cur.Active, cur.Conns)
	if cur.Rate > 0 {
		line += fmt.Sprintf("; limit %s", cur.Rate)
	}
	if d := cur.DialErrors - prev.DialErrors; d > 0 {
		line += fmt.Sprintf("; %d failed to reach the upstream", d)
	}
	return line
}

// benchReport is the outcome of 'proxy --bench', one row per rate.
type benchReport struct {
	SchemaVersion int        `json:"schema_version"`
	Started       time.Time  `json:"started"`
	DurationS     float64    `json:"bench_duration_s"`
	Repeat        int        `json:"repeat"`
	CPUs          int        `json:"cpus"`
	Rows          []benchRow `json:"rows"`
}

// benchRow summarises the runs at one target rate. Rates are bytes per second.
type benchRow struct {
	Target     units.ByteRate `json:"target_bytes_per_sec"`
	TargetText string         `json:"target"`
	Measured   spread         `json:"measured_bytes_per_sec"`
	ErrorPct   *spread        `json:"error_pct,omitempty"`            // limited rates only
	Direct     *spread        `json:"direct_bytes_per_sec,omitempty"` // unlimited only
	Ratio      *spread        `json:"ratio,omitempty"`                // unlimited only
	OtherCores *spread        `json:"other_cores,omitempty"`          // when /proc is readable
	Runs       []benchRun     `json:"runs"`
}

// benchRun is one proxy.Bench run with the machine load around it.
type benchRun struct {
	proxy.BenchResult
	// HostCores is how many CPUs the whole machine kept busy on average during
	// the run, SelfCores how many this process used; 0 when /proc is unreadable.
	HostCores float64 `json:"host_cores,omitempty"`
	SelfCores float64 `json:"self_cores,omitempty"`
}

// otherCores estimates the CPUs used by everything but this process: other
// work competing with the bench. It includes kernel threads, such as
// ksoftirqd, that may partly carry the bench's own loopback traffic.
func (r benchRun) otherCores() float64 { return max(r.HostCores-r.SelfCores, 0) }

// spread is the median, minimum and maximum of repeated measurements.
type spread struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// spreadOf summarises xs (not empty); an even count takes the mean of the
// middle two as the median.
func spreadOf(xs []float64) spread {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return spread{Median: med, Min: s[0], Max: s[n-1]}
}

// summarise builds the row for the runs at one target.
func summarise(target units.ByteRate, runs []benchRun) benchRow {
	pick := func(f func(benchRun) float64) spread {
		xs := make([]float64, len(runs))
		for i, r := range runs {
			xs[i] = f(r)
		}
		return spreadOf(xs)
	}
	row := benchRow{Target: target, TargetText: target.String(), Runs: runs,
		Measured: pick(func(r benchRun) float64 { return r.Measured })}
	if target > 0 {
		e := pick(func(r benchRun) float64 { return r.ErrorPct })
		row.ErrorPct = &e
	} else {
		d := pick(func(r benchRun) float64 { return r.Direct })
		q := pick(func(r benchRun) float64 { return r.Ratio })
		row.Direct, row.Ratio = &d, &q
	}
	if runs[0].HostCores > 0 {
		o := pick(benchRun.otherCores)
		row.OtherCores = &o
	}
	return row
}

// runProxyBench runs proxy.Bench for every rate, --bench-repeat times each.
func runProxyBench(cmd *cobra.Command, o *proxyOptions) error {
	ctx := cmd.Context()
	rates, err := o.rates()
	if err != nil {
		return err
	}
	rep := benchReport{SchemaVersion: 1, Started: time.Now().UTC().Truncate(time.Second),
		DurationS: o.benchDuration.Seconds(), Repeat: o.benchRepeat, CPUs: runtime.NumCPU()}
	log := cmd.ErrOrStderr()
	load := newLoadMeter()
	for _, r := range rates {
		var runs []benchRun
		for i := range o.benchRepeat {
			before := load.read()
			res, err := proxy.Bench(ctx, r, o.benchDuration)
			if err != nil {
				if ctx.Err() != nil {
					return &ExitError{Code: ExitInterrupted, Err: fmt.Errorf("interrupted during the bench")}
				}
				return fmt.Errorf("bench at %s: %w", r, err)
			}
			run := benchRun{BenchResult: res}
			run.HostCores, run.SelfCores = loadBetween(before, load.read())
			fmt.Fprintf(log, "bench: %s run %d/%d: %s\n", r, i+1, o.benchRepeat, describeRun(run))
			runs = append(runs, run)
		}
		rep.Rows = append(rep.Rows, summarise(r, runs))
	}
	if o.json {
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return renderBench(cmd.OutOrStdout(), rep)
}

// describeRun is the progress line for one bench run.
func describeRun(r benchRun) string {
	var s string
	if r.Target > 0 {
		s = fmt.Sprintf("%.3f MB/s (%+.2f%%)", units.MBPerSecond(r.Measured), r.ErrorPct)
	} else {
		s = fmt.Sprintf("%.0f MB/s through the proxy, %.0f MB/s direct, ratio %.2f",
			units.MBPerSecond(r.Measured), units.MBPerSecond(r.Direct), r.Ratio)
	}
	if r.HostCores > 0 {
		s += fmt.Sprintf("; CPUs busy %.2f, of which this process %.2f", r.HostCores, r.SelfCores)
	}
	return s
}

// loadMeter reads the machine's and this process's CPU counters, so a bench
// can tell a quiet run from one that competed with other work. Without /proc
// it reads nothing and the load stays unknown (zero).
type loadMeter struct {
	fs proc.FS
	ok bool
}

// loadSample is one reading of a loadMeter.
type loadSample struct {
	at   time.Time
	host proc.HostSample
	self proc.ProcSample
	ok   bool
}

func newLoadMeter() loadMeter {
	fs, err := proc.NewFS("")
	return loadMeter{fs: fs, ok: err == nil}
}

func (m loadMeter) read() loadSample {
	if !m.ok {
		return loadSample{}
	}
	h, err := m.fs.Host()
	if err != nil {
		return loadSample{}
	}
	p, err := m.fs.Process(os.Getpid())
	if err != nil {
		return loadSample{}
	}
	return loadSample{at: time.Now(), host: h, self: p, ok: true}
}

// loadBetween returns the average number of busy CPUs on the machine and the
// CPUs this process used between two samples; zeros when either is missing.
func loadBetween(a, b loadSample) (hostCores, selfCores float64) {
	wall := b.at.Sub(a.at)
	if !a.ok || !b.ok || wall <= 0 {
		return 0, 0
	}
	hostCores = proc.HostBusy(a.host, b.host) * float64(b.host.CPUs)
	selfCores = (b.self.CPU - a.self.CPU).Seconds() / wall.Seconds()
	return hostCores, selfCores
}

// renderBench prints the report: one sentence for a single rate run once, a
// table otherwise.
func renderBench(w io.Writer, rep benchReport) error {
	if len(rep.Rows) == 1 && rep.Repeat == 1 {
		row := rep.Rows[0]
		if row.Target > 0 {
			_, err := fmt.Fprintf(w, "target %s, measured %.3f MB/s through the proxy over %gs: error %+.2f%%\n",
				row.Target, units.MBPerSecond(row.Measured.Median), rep.DurationS, row.ErrorPct.Median)
			return err
		}
		_, err := fmt.Fprintf(w, "unlimited: %.0f MB/s through the proxy, %.0f MB/s direct (%gs each): ratio %.2f (%.0f%% of direct)\n",
			units.MBPerSecond(row.Measured.Median), units.MBPerSecond(row.Direct.Median), rep.DurationS,
			row.Ratio.Median, 100*row.Ratio.Median)
		return err
	}
	fmt.Fprintf(w, "proxy bench on 127.0.0.1: %gs per run, %d run(s) per rate, %d CPU(s); median [min .. max]\n",
		rep.DurationS, rep.Repeat, rep.CPUs)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TARGET\tMEASURED MB/s\tERROR %\tDIRECT MB/s\tRATIO\tOTHER CPU")
	for _, row := range rep.Rows {
		cols := []string{row.TargetText, fmtSpread(mbps(row.Measured), "%.3f"), "", "", "", ""}
		if row.OtherCores != nil {
			cols[5] = fmtSpread(*row.OtherCores, "%.2f")
		}
		if row.ErrorPct != nil {
			cols[2] = fmtSpread(*row.ErrorPct, "%+.2f")
		}
		if row.Direct != nil {
			cols[1] = fmtSpread(mbps(row.Measured), "%.0f")
			cols[3] = fmtSpread(mbps(*row.Direct), "%.0f")
			cols[4] = fmtSpread(*row.Ratio, "%.2f")
		}
		fmt.Fprintln(tw, strings.Join(cols, "\t"))
	}
	return tw.Flush()
}

func mbps(s spread) spread {
	return spread{units.MBPerSecond(s.Median), units.MBPerSecond(s.Min), units.MBPerSecond(s.Max)}
}

// fmtSpread prints "median [min .. max]", or just the median when all agree.
func fmtSpread(s spread, verb string) string {
	med := fmt.Sprintf(verb, s.Median)
	lo, hi := fmt.Sprintf(verb, s.Min), fmt.Sprintf(verb, s.Max)
	if lo == med && hi == med {
		return med
	}
	return fmt.Sprintf("%s [%s .. %s]", med, lo, hi)
}
