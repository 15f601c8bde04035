package cli

import (
	"bufio"
	"context"
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/lab/proxy"
)

func TestProxyOptionsValidate(t *testing.T) {
	relay := func() proxyOptions {
		return proxyOptions{listen: "127.0.0.1:6432", upstream: "127.0.0.1:5432", reportEvery: 5 * time.Second}
	}
	tests := []struct {
		name    string
		o       proxyOptions
		wantErr string // "" = valid
	}{
		{"a listen and an upstream address are enough to relay", relay(), ""},
		{"relaying without --listen asks for it", func() proxyOptions { o := relay(); o.listen = ""; return o }(), "--listen is required"},
		{"relaying without --upstream asks for it", func() proxyOptions { o := relay(); o.upstream = ""; return o }(), "--upstream is required"},
		{"a malformed upstream is explained", func() proxyOptions { o := relay(); o.upstream = "db"; return o }(), "missing port"},
		{"a negative report interval is rejected", func() proxyOptions { o := relay(); o.reportEvery = -time.Second; return o }(), "--report-every"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkUsage(t, tt.o.Validate(), tt.wantErr)
		})
	}
}

func TestBenchOptionsValidate(t *testing.T) {
	bench := func() benchOptions { return benchOptions{duration: 10 * time.Second, repeat: 1} }
	tests := []struct {
		name    string
		o       benchOptions
		changed []string
		wantErr string // "" = valid
	}{
		{"no flags measure unlimited", bench(), nil, ""},
		{"one rate is valid", func() benchOptions { o := bench(); o.rate = 8_000_000; return o }(), []string{"rate"}, ""},
		{"--rate and --rates together are rejected",
			func() benchOptions { o := bench(); o.rates = []string{"1MB/s"}; return o }(), []string{"rate", "rates"}, "not both"},
		{"a bad rate in --rates is named",
			func() benchOptions { o := bench(); o.rates = []string{"1MB/s", "fast"}; return o }(), []string{"rates"}, `--rates: invalid rate "fast"`},
		{"a zero duration is rejected", func() benchOptions { o := bench(); o.duration = 0; return o }(), nil, "--duration"},
		{"zero repeats are rejected", func() benchOptions { o := bench(); o.repeat = 0; return o }(), nil, "--repeat"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.o
			o.changed = func(name string) bool { return slices.Contains(tt.changed, name) }
			checkUsage(t, o.Validate(), tt.wantErr)
		})
	}
}

// checkUsage checks that err is nil when wantErr is "", else a usage error
// mentioning wantErr.
func checkUsage(t *testing.T, err error, wantErr string) {
	t.Helper()
	if wantErr == "" {
		if err != nil {
			t.Errorf("Validate() = %v, want nil", err)
		}
		return
	}
	if err == nil || !strings.Contains(err.Error(), wantErr) {
		t.Fatalf("Validate() = %v, want an error mentioning %q", err, wantErr)
	}
	if ExitCode(err) != ExitUsage {
		t.Errorf("exit code %d, want %d (usage)", ExitCode(err), ExitUsage)
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
			5 * time.Second, []string{"down 8.0 MB/s", "up 10 kB/s", "over 5s", "1 connection(s) open, 2 total", "limit 8MB/s"}},
		{"an unlimited proxy shows no limit", proxy.Stats{}, proxy.Stats{Downstream: 1e6}, time.Second,
			[]string{"down 1.0 MB/s"}},
		{"failed upstream connections in the interval are counted", proxy.Stats{DialErrors: 1}, proxy.Stats{DialErrors: 3}, time.Second,
			[]string{"2 failed to reach the upstream"}},
		{"a zero interval reports zero rather than dividing by zero", proxy.Stats{}, proxy.Stats{Downstream: 5}, 0,
			[]string{"down 0 B/s"}},
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
		{"a malformed rate", []string{"proxy", "bench", "--rate", "fast"}},
		{"a relay flag given to bench", []string{"proxy", "bench", "--listen", "127.0.0.1:1"}},
		{"a relay without addresses", []string{"proxy"}},
		{"a port already in use by the upstream itself", []string{"proxy", "--listen", "127.0.0.1:1", "--upstream", "127.0.0.1:1"}},
		{"a listen address on every interface without --allow-remote", []string{"proxy", "--listen", ":6432", "--upstream", "127.0.0.1:5432"}},
		{"a non-loopback listen address without --allow-remote", []string{"proxy", "--listen", "192.0.2.1:6432", "--upstream", "127.0.0.1:5432"}},
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

// A listen address other machines reach is refused in one line that names
// --allow-remote; a unix-socket upstream starts with a warning on stderr
// that clients reach the server as this account.
func TestProxyCommandGuardsRemoteListenAndWarnsOfUnixUpstream(t *testing.T) {
	var stderr strings.Builder
	cmd := NewRoot()
	cmd.SetArgs([]string{"proxy", "--listen", ":0", "--upstream", "127.0.0.1:5432"})
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	err := cmd.ExecuteContext(context.Background())
	if err == nil || ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), "--allow-remote") || strings.Contains(err.Error(), "\n") {
		t.Errorf("proxy --listen :0 = %v (exit %d), want a one-line usage error naming --allow-remote", err, ExitCode(err))
	}

	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cmd = NewRoot()
	cmd.SetArgs([]string{"proxy", "--listen", dir + "/.s.PGSQL.6432", "--upstream", dir + "/.s.PGSQL.5432", "--report-every", "0"})
	out, w := io.Pipe()
	cmd.SetOut(w)
	cmd.SetErr(&stderr)
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx); w.Close() }()
	lines := bufio.NewScanner(out)
	if !lines.Scan() {
		t.Fatalf("no start line: %v", <-done)
	}
	cancel()
	go io.Copy(io.Discard, out)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "warning") || !strings.Contains(stderr.String(), "unix socket") {
		t.Errorf("stderr = %q, want a warning about the unix-socket upstream", stderr.String())
	}
}
