package cli

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/proxy"
)

func TestProxyOptionsValidate(t *testing.T) {
	relay := func() proxyOptions {
		return proxyOptions{listen: "127.0.0.1:6432", upstream: "127.0.0.1:5432", reportEvery: 5 * time.Second,
			benchDuration: 10 * time.Second, benchRepeat: 1}
	}
	bench := func() proxyOptions {
		return proxyOptions{bench: true, benchDuration: 10 * time.Second, benchRepeat: 1, reportEvery: 5 * time.Second}
	}
	tests := []struct {
		name    string
		o       proxyOptions
		changed []string
		wantErr string // "" = valid
	}{
		{"a listen and an upstream address are enough to relay", relay(), nil, ""},
		{"relaying without --listen asks for it", func() proxyOptions { o := relay(); o.listen = ""; return o }(), nil, "--listen is required"},
		{"relaying without --upstream asks for it", func() proxyOptions { o := relay(); o.upstream = ""; return o }(), nil, "--upstream is required"},
		{"a malformed upstream is explained", func() proxyOptions { o := relay(); o.upstream = "db"; return o }(), nil, "missing port"},
		{"a negative report interval is rejected", func() proxyOptions { o := relay(); o.reportEvery = -time.Second; return o }(), nil, "--report-every"},
		{"bench flags without --bench are rejected", relay(), []string{"bench-rates"}, "only applies with --bench"},
		{"--bench alone is valid", bench(), nil, ""},
		{"--bench with a rate is valid", func() proxyOptions { o := bench(); o.rate = 8_000_000; return o }(), []string{"rate"}, ""},
		{"--bench with --listen is rejected", bench(), []string{"listen"}, "--listen does not apply to --bench"},
		{"--rate and --bench-rates together are rejected",
			func() proxyOptions { o := bench(); o.benchRates = []string{"1MB/s"}; return o }(), []string{"rate", "bench-rates"}, "not both"},
		{"a bad rate in --bench-rates is named",
			func() proxyOptions { o := bench(); o.benchRates = []string{"1MB/s", "fast"}; return o }(), []string{"bench-rates"}, `--bench-rates: invalid rate "fast"`},
		{"a zero bench duration is rejected", func() proxyOptions { o := bench(); o.benchDuration = 0; return o }(), nil, "--bench-duration"},
		{"zero repeats are rejected", func() proxyOptions { o := bench(); o.benchRepeat = 0; return o }(), nil, "--bench-repeat"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.o
			o.changed = func(name string) bool {
				for _, c := range tt.changed {
					if c == name {
						return true
					}
				}
				return false
			}
			err := o.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Errorf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Validate() = %v, want an error mentioning %q", err, tt.wantErr)
			}
			if ExitCode(err) != ExitUsage {
				t.Errorf("exit code %d, want %d (usage)", ExitCode(err), ExitUsage)
			}
		})
	}
}

func TestReportLine(t *testing.T) {
	tests := []struct {
		name      string
		prev, cur proxy.Stats
		elapsed   time.Duration
		want      []string
	}{
		{"rates are bytes moved over the interval in MB/s",
			proxy.Stats{Downstream: 0, Upstream: 0}, proxy.Stats{Downstream: 40_000_000, Upstream: 50_000, Active: 1, Conns: 2, Rate: 8_000_000},
			5 * time.Second, []string{"down 8.00 MB/s", "up 0.01 MB/s", "over 5s", "1 connection(s) open, 2 total", "limit 8MB/s"}},
		{"an unlimited proxy shows no limit", proxy.Stats{}, proxy.Stats{Downstream: 1e6}, time.Second,
			[]string{"down 1.00 MB/s"}},
		{"failed upstream connections in the interval are counted", proxy.Stats{DialErrors: 1}, proxy.Stats{DialErrors: 3}, time.Second,
			[]string{"2 failed to reach the upstream"}},
		{"a zero interval reports zero rather than dividing by zero", proxy.Stats{}, proxy.Stats{Downstream: 5}, 0,
			[]string{"down 0.00 MB/s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := reportLine(tt.prev, tt.cur, tt.elapsed)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("reportLine = %q, want it to contain %q", got, w)
				}
			}
			if tt.cur.Rate == 0 && strings.Contains(got, "limit") {
				t.Errorf("reportLine = %q mentions a limit for an unlimited proxy", got)
			}
		})
	}
}

func TestSpreadOf(t *testing.T) {
	tests := []struct {
		name string
		in   []float64
		want spread
	}{
		{"one value is its own median, minimum and maximum", []float64{3}, spread{3, 3, 3}},
		{"an odd count takes the middle value", []float64{5, 1, 3}, spread{3, 1, 5}},
		{"an even count averages the middle two", []float64{4, 1, 2, 10}, spread{3, 1, 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := spreadOf(tt.in); got != tt.want {
				t.Errorf("spreadOf(%v) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestRenderBench(t *testing.T) {
	limited := summarise(8_000_000, []benchRun{{BenchResult: proxy.BenchResult{Target: 8_000_000, Measured: 7_980_000, ErrorPct: -0.25}}})
	unlimited := summarise(0, []benchRun{
		{BenchResult: proxy.BenchResult{Measured: 2e9, Direct: 2.5e9, Ratio: 0.8}, HostCores: 1.9, SelfCores: 1.8},
		{BenchResult: proxy.BenchResult{Measured: 1.8e9, Direct: 2.4e9, Ratio: 0.75}, HostCores: 2, SelfCores: 1.5},
		{BenchResult: proxy.BenchResult{Measured: 2.1e9, Direct: 2.5e9, Ratio: 0.84}, HostCores: 1.7, SelfCores: 1.7},
	})
	tests := []struct {
		name string
		rep  benchReport
		want []string
	}{
		{"one limited run prints target, measured rate and error",
			benchReport{DurationS: 10, Repeat: 1, Rows: []benchRow{limited}},
			[]string{"target 8MB/s", "measured 7.980 MB/s", "error -0.25%"}},
		{"one unlimited run prints both rates and the ratio",
			benchReport{DurationS: 10, Repeat: 1, Rows: []benchRow{summarise(0, unlimited.Runs[:1])}},
			[]string{"2000 MB/s through the proxy", "2500 MB/s direct", "ratio 0.80 (80% of direct)"}},
		{"repeated runs print a table of medians and spreads",
			benchReport{DurationS: 10, Repeat: 3, CPUs: 2, Rows: []benchRow{unlimited}},
			[]string{"TARGET", "unlimited", "2000 [1800 .. 2100]", "0.80 [0.75 .. 0.84]", "0.10 [0.00 .. 0.50]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := renderBench(&b, tt.rep); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, b.String())
				}
			}
		})
	}
}

func TestProxyCommandRelaysUntilCancelled(t *testing.T) {
	up, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	go func() {
		c, err := up.Accept()
		if err == nil {
			io.Copy(c, c) // echo
			c.Close()
		}
	}()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, w := io.Pipe()
	cmd := NewRoot()
	cmd.SetArgs([]string{"proxy", "--listen", "127.0.0.1:0", "--upstream", up.Addr().String(), "--rate", "8MB/s", "--report-every", "0"})
	cmd.SetOut(w)
	cmd.SetErr(io.Discard)
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx); w.Close() }()

	lines := bufio.NewScanner(out)
	if !lines.Scan() {
		t.Fatalf("no start line: %v", <-done)
	}
	start := lines.Text()
	if !strings.Contains(start, "rate 8MB/s") || !strings.Contains(start, up.Addr().String()) {
		t.Errorf("start line %q lacks the rate or the upstream", start)
	}
	addr := strings.TrimSuffix(strings.Fields(strings.SplitAfter(start, "listening on ")[1])[0], ",")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial the proxy at %q (from %q): %v", addr, start, err)
	}
	defer c.Close()
	c.Write([]byte("ping"))
	buf := make([]byte, 4)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "ping" {
		t.Errorf("echo through the proxy = %q, %v", buf, err)
	}

	cancel()
	go io.Copy(io.Discard, out)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the command returned %v after cancellation, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the command did not stop within 5 s of cancellation")
	}
}

func TestProxyCommandRejectsBadInputAsUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"a malformed rate", []string{"proxy", "--bench", "--rate", "fast"}},
		{"a relay without addresses", []string{"proxy"}},
		{"a port already in use by the upstream itself", []string{"proxy", "--listen", "127.0.0.1:1", "--upstream", "127.0.0.1:1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is a usage error", func(t *testing.T) {
			cmd := NewRoot()
			cmd.SetArgs(tt.args)
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			err := cmd.ExecuteContext(context.Background())
			if err == nil {
				t.Fatal("the command succeeded")
			}
			if ExitCode(err) != ExitUsage {
				t.Errorf("exit code %d for %v, want %d", ExitCode(err), err, ExitUsage)
			}
		})
	}
}
