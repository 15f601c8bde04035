package proxy

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/units"
)

// startProxy starts a proxy to upstream and closes it when the test ends.
func startProxy(t *testing.T, upstream string, r units.ByteRate) *Proxy {
	t.Helper()
	p, err := Start(context.Background(), Options{Listen: "127.0.0.1:0", Upstream: upstream, Rate: r})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// listen starts a loopback listener that runs serve for each connection.
func listen(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() { defer wg.Done(); defer c.Close(); serve(c) }()
		}
	}()
	return ln.Addr().String()
}

func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRelayPassesBytesIntactBothWays(t *testing.T) {
	tests := []struct {
		name string
		rate units.ByteRate
		size int
	}{
		{"an unlimited link relays megabytes intact", 0, 8 << 20},
		{"a limited link relays intact in many small chunks", 50_000_000, 4 << 20},
		{"a slow link whose chunks are smaller than its minimum burst relays intact", 200_000, 20_000},
		{"an empty stream only half-closes", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			toUpstream := randomBytes(t, tt.size)
			toClient := randomBytes(t, tt.size/2+1)
			got := make(chan [32]byte, 1)
			// The upstream reads everything until the client half-closes, then
			// answers: that only works if the proxy forwards the half-close.
			up := listen(t, func(c net.Conn) {
				h := sha256.New()
				io.Copy(h, c)
				var sum [32]byte
				copy(sum[:], h.Sum(nil))
				got <- sum
				c.Write(toClient)
			})
			p := startProxy(t, up, tt.rate)

			c, err := net.Dial("tcp", p.Addr())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			go func() {
				c.Write(toUpstream)
				c.(*net.TCPConn).CloseWrite()
			}()
			back, err := io.ReadAll(c)
			if err != nil {
				t.Fatalf("read from proxy: %v", err)
			}
			if sum := <-got; sum != sha256.Sum256(toUpstream) {
				t.Errorf("upstream received different bytes than the client sent")
			}
			if !bytes.Equal(back, toClient) {
				t.Errorf("client received %d bytes that differ from the %d the upstream sent", len(back), len(toClient))
			}
			c.Close()
			waitFor(t, func() bool { return p.Stats().Active == 0 })
			s := p.Stats()
			if s.Upstream != uint64(len(toUpstream)) || s.Downstream != uint64(len(toClient)) || s.Conns != 1 {
				t.Errorf("stats = %+v, want upstream %d, downstream %d, 1 conn", s, len(toUpstream), len(toClient))
			}
		})
	}
}

func TestCloseEndsIdleConnectionsAndStopsListening(t *testing.T) {
	up := listen(t, func(c net.Conn) { io.Copy(io.Discard, c) })
	p := startProxy(t, up, 1_000_000)
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	waitFor(t, func() bool { return p.Stats().Active == 1 })

	done := make(chan error, 1)
	go func() { done <- p.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return within 5 s with an idle connection open")
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("client read after Close = %v, want EOF or reset", err)
	}
	if c2, err := net.DialTimeout("tcp", p.Addr(), time.Second); err == nil {
		c2.Close()
		t.Errorf("the proxy still accepts connections after Close")
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestCancellingTheContextClosesTheProxy(t *testing.T) {
	up := listen(t, func(c net.Conn) { io.Copy(io.Discard, c) })
	ctx, cancel := context.WithCancel(context.Background())
	p, err := Start(ctx, Options{Listen: "127.0.0.1:0", Upstream: up})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	done := make(chan struct{})
	go func() { p.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the proxy did not stop within 5 s of its context being cancelled")
	}
}

func TestAnUnreachableUpstreamDropsTheClientAndReportsIt(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close() // nothing listens there any more
	errs := make(chan error, 1)
	p, err := Start(context.Background(), Options{Listen: "127.0.0.1:0", Upstream: dead, OnError: func(err error) {
		select {
		case errs <- err:
		default:
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Error("the client connection stayed open although the upstream is down")
	}
	select {
	case err := <-errs:
		if !bytes.Contains([]byte(err.Error()), []byte("connect to upstream")) {
			t.Errorf("OnError got %q, want it to name the upstream connection", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("OnError was not called")
	}
	if s := p.Stats(); s.DialErrors != 1 {
		t.Errorf("DialErrors = %d, want 1", s.DialErrors)
	}
}

func TestSetRateChangesTheLimitLive(t *testing.T) {
	up := listen(t, func(c net.Conn) { io.Copy(io.Discard, c) })
	p := startProxy(t, up, 0)
	p.SetRate(2_000_000)
	if got := p.Stats().Rate; got != 2_000_000 {
		t.Fatalf("Stats().Rate = %v after SetRate(2MB/s)", got)
	}
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go func() {
		buf := make([]byte, 64<<10)
		for {
			if _, err := c.Write(buf); err != nil {
				return
			}
		}
	}()
	time.Sleep(300 * time.Millisecond)
	b0, t0 := p.Stats().Upstream, time.Now()
	time.Sleep(1500 * time.Millisecond)
	got := float64(p.Stats().Upstream-b0) / time.Since(t0).Seconds()
	if got < 1_600_000 || got > 2_400_000 {
		t.Errorf("rate after SetRate(2MB/s) = %.0f B/s, want 2 MB/s ±20%%", got)
	}
	p.SetRate(-1)
	if got := p.Stats().Rate; got != 0 {
		t.Errorf("Stats().Rate = %v after SetRate(-1), want unlimited", got)
	}
}

// waitFor polls cond for up to 5 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
