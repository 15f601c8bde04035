package proxy

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lagscope/lagscope/internal/units"
)

// benchChunk is the write and read size of Bench's source and sink, in bytes.
const benchChunk = 256 << 10

// Warm-ups: Bench lets data flow this long before it starts counting, so
// connection setup and the initially full token bucket (50 ms of traffic) do
// not skew the rate.
const (
	limitedWarmup   = 500 * time.Millisecond
	unlimitedWarmup = 100 * time.Millisecond
)

// maxSegment is the longest stretch Bench measures one path (proxy or direct)
// before switching to the other when comparing them.
const maxSegment = time.Second

// BenchResult is what one Bench run measured. Rates are in bytes per second.
type BenchResult struct {
	// Target is the configured rate per direction; 0 = unlimited.
	Target units.ByteRate `json:"target_bytes_per_sec"`
	// Seconds is the length of the measured window through the proxy.
	Seconds float64 `json:"seconds"`
	// Bytes is the number of bytes that reached the sink through the proxy
	// within the window.
	Bytes uint64 `json:"bytes"`
	// Measured is Bytes / Seconds: the rate achieved through the proxy.
	Measured float64 `json:"measured_bytes_per_sec"`
	// ErrorPct is (Measured-Target)/Target in percent; 0 when Target is 0.
	ErrorPct float64 `json:"error_pct"`
	// Direct is the rate of a direct loopback connection with the same source
	// and sink and no proxy; measured only when Target is 0, else 0.
	Direct float64 `json:"direct_bytes_per_sec,omitempty"`
	// Ratio is Measured / Direct; only when Target is 0, else 0.
	Ratio float64 `json:"ratio,omitempty"`
}

// Bench measures the relay on 127.0.0.1. It starts a sink server and a proxy
// limited to r in front of it, pushes data from one client connection
// (client → upstream) and reports the rate that reached the sink over d, after
// a warm-up of 0.5 s. With r == 0 it also measures a direct connection to the
// sink without the proxy, for d as well, and reports the ratio; the two are
// measured in alternating segments of at most 1 s (proxy, direct, direct,
// proxy, ...), each on fresh connections after a 0.1 s warm-up, so that
// drifting machine load affects both alike. A limited run takes about d + 0.5
// s, an unlimited one about 2.2 d.
func Bench(ctx context.Context, r units.ByteRate, d time.Duration) (BenchResult, error) {
	res := BenchResult{Target: r}
	if d <= 0 {
		return res, fmt.Errorf("bench duration %v must be positive, e.g. 10s", d)
	}
	if r < 0 {
		return res, fmt.Errorf("bench rate %d bytes/s is negative: use a positive rate such as 8MB/s, or 0 for unlimited", int64(r))
	}
	if r > 0 {
		m, err := measure(ctx, r, true, limitedWarmup, d)
		if err != nil {
			return res, err
		}
		res.Seconds, res.Bytes, res.Measured = m.seconds, m.bytes, m.rate()
		res.ErrorPct = ErrorPct(res.Measured, r)
		return res, nil
	}
	var via, direct sample
	seg := min(maxSegment, max(d/10, 200*time.Millisecond))
	for i := 0; time.Duration(i)*seg < d; i++ {
		s := min(seg, d-time.Duration(i)*seg)
		for _, viaProxy := range [2]bool{i%2 == 0, i%2 != 0} {
			m, err := measure(ctx, 0, viaProxy, unlimitedWarmup, s)
			if err != nil {
				return res, err
			}
			if viaProxy {
				via.add(m)
			} else {
				direct.add(m)
			}
		}
	}
	res.Seconds, res.Bytes, res.Measured = via.seconds, via.bytes, via.rate()
	res.Direct = direct.rate()
	res.Ratio = Ratio(res.Measured, res.Direct)
	return res, nil
}

// ErrorPct is the deviation of a measured rate (bytes per second) from target,
// in percent; 0 when target is unlimited.
func ErrorPct(measured float64, target units.ByteRate) float64 {
	if target <= 0 {
		return 0
	}
	return (measured - float64(target)) / float64(target) * 100
}

// Ratio is proxied / direct, 0 when direct is not positive.
func Ratio(proxied, direct float64) float64 {
	if direct <= 0 {
		return 0
	}
	return proxied / direct
}

// sample is a byte count over a measured time.
type sample struct {
	bytes   uint64
	seconds float64
}

func (s *sample) add(o sample) { s.bytes += o.bytes; s.seconds += o.seconds }

func (s sample) rate() float64 {
	if s.seconds <= 0 {
		return 0
	}
	return float64(s.bytes) / s.seconds
}

// measure pushes data into a fresh sink, through a fresh proxy limited to r
// when viaProxy, and counts what arrives in a window of d after warmup.
func measure(ctx context.Context, r units.ByteRate, viaProxy bool, warmup, d time.Duration) (sample, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s, err := startSink(ctx)
	if err != nil {
		return sample{}, err
	}
	defer s.close()
	target := s.addr()
	if viaProxy {
		p, err := Start(ctx, Options{Listen: "127.0.0.1:0", Upstream: target, Rate: r})
		if err != nil {
			return sample{}, fmt.Errorf("bench: start proxy: %w", err)
		}
		defer p.Close()
		target = p.Addr()
	}
	var dialer net.Dialer
	c, err := dialer.DialContext(ctx, "tcp", target)
	if err != nil {
		return sample{}, fmt.Errorf("bench: connect to %s: %w", target, err)
	}
	srcDone := make(chan error, 1)
	go func() { srcDone <- push(c) }()
	defer func() { c.Close(); <-srcDone }()

	if err := waitOrStop(ctx, warmup, srcDone); err != nil {
		return sample{}, err
	}
	b0, t0 := s.bytes.Load(), time.Now()
	if err := waitOrStop(ctx, d, srcDone); err != nil {
		return sample{}, err
	}
	b1, t1 := s.bytes.Load(), time.Now()
	if b1 == b0 {
		return sample{}, fmt.Errorf("bench: no data reached the sink at %s in %v", s.addr(), d)
	}
	return sample{bytes: b1 - b0, seconds: t1.Sub(t0).Seconds()}, nil
}

// waitOrStop waits d, failing early if ctx ends or the source stopped.
func waitOrStop(ctx context.Context, d time.Duration, srcDone <-chan error) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("bench: %w", ctx.Err())
	case err := <-srcDone:
		return fmt.Errorf("bench: the source connection stopped early: %w", err)
	}
}

// push writes to c until a write fails (Bench closes c when done).
func push(c net.Conn) error {
	buf := make([]byte, benchChunk)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	for {
		if _, err := c.Write(buf); err != nil {
			return err
		}
	}
}

// sink accepts connections on 127.0.0.1 and discards what they send,
// counting the bytes.
type sink struct {
	ln    net.Listener
	bytes atomic.Uint64
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns []net.Conn
}

func startSink(ctx context.Context) (*sink, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("bench: start sink on 127.0.0.1: %w", err)
	}
	s := &sink{ln: ln}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns = append(s.conns, c)
			s.mu.Unlock()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				s.drain(c)
			}()
		}
	}()
	return s, nil
}

func (s *sink) addr() string { return s.ln.Addr().String() }

// drain reads c until it ends or fails, counting the bytes.
func (s *sink) drain(c net.Conn) {
	defer c.Close()
	buf := make([]byte, benchChunk)
	for {
		n, err := c.Read(buf)
		s.bytes.Add(uint64(n))
		if err != nil {
			return
		}
	}
}

// close stops the sink and waits for its goroutines.
func (s *sink) close() {
	s.ln.Close()
	s.mu.Lock()
	for _, c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}
