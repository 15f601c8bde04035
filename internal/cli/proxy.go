package cli

import (
	"fmt"
	"os"
	"os/user"
	"strconv"
	"time"

	"github.com/lagscope/lagscope/internal/lab/proxy"
	"github.com/lagscope/lagscope/internal/units"
	"github.com/spf13/cobra"
)

// proxyOptions are the flags of 'lagscope proxy'.
type proxyOptions struct {
	listen      string
	upstream    string
	rate        units.ByteRate
	reportEvery time.Duration
	allowRemote bool
}

func (o *proxyOptions) bind(c *cobra.Command) {
	fl := c.Flags()
	fl.StringVar(&o.listen, "listen", "", "address clients connect to, host:port (e.g. 127.0.0.1:6432)")
	fl.StringVar(&o.upstream, "upstream", "", "address to relay to, host:port (e.g. 127.0.0.1:5432)")
	fl.Var(&o.rate, "rate", "limit per direction for the whole link: 500kB/s, 8MB/s, 100Mbit/s, 8MiB/s or unlimited")
	fl.DurationVar(&o.reportEvery, "report-every", 5*time.Second, "print the achieved rate this often (0 = never)")
	fl.BoolVar(&o.allowRemote, "allow-remote", false, "allow a --listen address other machines can reach (the proxy authenticates no one)")
}

// Validate checks the flags; errors are usage errors.
func (o *proxyOptions) Validate() error {
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

func (o *proxyOptions) proxyOptions() proxy.Options {
	return proxy.Options{Listen: o.listen, Upstream: o.upstream, Rate: o.rate, AllowRemote: o.allowRemote}
}

func newProxyCmd() *cobra.Command {
	o := &proxyOptions{}
	c := &cobra.Command{
		Use:   "proxy --listen ADDR --upstream ADDR [--rate RATE]",
		Short: "Relay TCP through a bandwidth-limited link ('proxy bench' measures how well the limit holds)",
		Long: `proxy relays TCP connections from --listen to --upstream and limits the
bandwidth of the link: --rate applies to each direction separately and is
shared by all connections, like a real network link (four connections at
8MB/s get 8MB/s together, not 32MB/s). Point a subscription's connection
string at --listen to put a slow network between publisher and subscriber.

The proxy authenticates no one: --listen must be a loopback address
(127.0.0.1, ::1, localhost) unless --allow-remote is given, and a unix
socket --listen is made 0600 (this account only). With a unix socket
--upstream, every client reaches the server as this account (peer
authentication), so the proxy warns about it.

Rates: 500kB/s, 8MB/s and 1GB/s are powers of 1000; 8MiB/s powers of 1024;
100Mbit/s (or 100Mb/s, 100Mbps) is bits, so 12.5MB/s. "unlimited" or 0 turns
the limit off (the default).

The proxy runs in the foreground until Ctrl-C and prints the achieved rate per
direction every --report-every. "down" is upstream -> client (for a
subscription: the WAL the publisher sends), "up" is client -> upstream.

'lagscope proxy bench' measures the relay on this machine instead.
See docs/proxy.md for how the limit works and measured results.`,
		Example: `  # An 8MB/s link in front of a local publisher
  lagscope proxy --listen 127.0.0.1:6432 --upstream 127.0.0.1:5432 --rate 8MB/s

  # A 100 Mbit/s link other machines reach, quiet
  lagscope proxy --listen :6432 --allow-remote --upstream db1:5432 --rate 100Mbit/s --report-every 0`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			return runProxy(cmd, o)
		},
	}
	c.AddCommand(newProxyBenchCmd())
	o.bind(c)
	return c
}

// runProxy relays in the foreground until the command's context is done.
func runProxy(cmd *cobra.Command, o *proxyOptions) error {
	ctx := cmd.Context()
	out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
	po := o.proxyOptions()
	po.OnError = func(err error) { fmt.Fprintf(errOut, "proxy: %v\n", err) }
	if proxy.IsUnix(o.upstream) {
		fmt.Fprintf(errOut, "proxy: warning: --upstream %s is a unix socket: every client of the proxy reaches the server as this account (%s), with its peer authentication\n",
			o.upstream, currentAccount())
	}
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
		return float64(b-a) / sec
	}
	line := fmt.Sprintf("proxy: down %s, up %s over %.0fs; %d connection(s) open, %d total",
		units.FormatRate(rate(prev.Downstream, cur.Downstream)), units.FormatRate(rate(prev.Upstream, cur.Upstream)), sec, cur.Active, cur.Conns)
	if cur.Rate > 0 {
		line += fmt.Sprintf("; limit %s", cur.Rate)
	}
	if d := cur.DialErrors - prev.DialErrors; d > 0 {
		line += fmt.Sprintf("; %d failed to reach the upstream", d)
	}
	return line
}

// currentAccount names the account lagscope runs as, for the warning.
func currentAccount() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return "uid " + strconv.Itoa(os.Getuid())
}
