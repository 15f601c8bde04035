package proxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lagscope/lagscope/internal/units"
)

// dialTimeout bounds one connection attempt to the upstream.
const dialTimeout = 10 * time.Second

// Proxy relays TCP connections from its listen address to one upstream,
// limiting each direction of the whole link to a shared rate. It is safe for
// concurrent use. Create it with Start; stop it with Close or by cancelling the
// context given to Start.
type Proxy struct {
	ln       net.Listener
	upstream string
	onError  func(error)

	ctx    context.Context // cancelled by Close; ends token waits and the accept loop
	cancel context.CancelFunc
	wg     sync.WaitGroup // accept loop, watcher and every connection

	down, up   link // down: upstream → client, up: client → upstream
	rate       atomic.Int64
	conns      atomic.Uint64
	active     atomic.Int64
	dialErrors atomic.Uint64

	gate gate // closed by Freeze, open again after Restore

	mu     sync.Mutex
	open   map[net.Conn]struct{} // every relayed connection, both ends
	closed bool                  // set once shutdown has closed everything
	cut    bool                  // set by Cut: new clients are closed at once

	closeErr error
	once     sync.Once
}

// Stats are cumulative counters since Start.
type Stats struct {
	// Downstream is the number of bytes relayed from the upstream to clients.
	Downstream uint64 `json:"downstream_bytes"`
	// Upstream is the number of bytes relayed from clients to the upstream.
	Upstream uint64 `json:"upstream_bytes"`
	// Conns is the number of client connections accepted.
	Conns uint64 `json:"conns"`
	// Active is the number of client connections being relayed now.
	Active int64 `json:"active"`
	// DialErrors counts client connections dropped because the upstream could
	// not be reached.
	DialErrors uint64 `json:"dial_errors"`
	// Rate is the current limit per direction in bytes per second, 0 = unlimited.
	Rate units.ByteRate `json:"rate_bytes_per_sec"`
}

// Start validates o, listens on o.Listen and relays connections in the
// background until ctx is done or Close is called. The returned Proxy's Addr
// is the real listen address (useful with port 0).
func Start(ctx context.Context, o Options) (*Proxy, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	var ln net.Listener
	var err error
	if IsUnix(o.Listen) {
		// Mode 0600: the proxy's account only (a client of another
		// account, such as a lab server, is given the socket by its maker).
		ln, err = listenUnix(ctx, o.Listen)
	} else {
		var lc net.ListenConfig
		ln, err = lc.Listen(ctx, "tcp", o.Listen)
	}
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w (is the port already in use? choose another listen address)", o.Listen, err)
	}
	p := &Proxy{
		ln:       ln,
		upstream: o.Upstream,
		onError:  o.OnError,
		open:     make(map[net.Conn]struct{}),
	}
	p.ctx, p.cancel = context.WithCancel(ctx)
	p.SetRate(o.Rate)
	p.wg.Add(2)
	go func() {
		defer p.wg.Done()
		<-p.ctx.Done()
		p.shutdown()
	}()
	go func() {
		defer p.wg.Done()
		p.acceptLoop()
	}()
	return p, nil
}

// Addr is the address the proxy listens on, e.g. "127.0.0.1:40123".
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// SetRate changes the limit of both directions, in bytes per second, for all
// current and future connections; 0 (or a negative rate) means unlimited. A
// chunk already waiting for tokens finishes at the old rate. Kernel socket
// buffers of open connections keep the sizes they were given at accept time.
func (p *Proxy) SetRate(r units.ByteRate) {
	r = max(r, 0)
	p.rate.Store(int64(r))
	p.down.limiter.Store(newLimiter(r))
	p.up.limiter.Store(newLimiter(r))
}

// Stats returns the counters so far; they are read without a lock, so the
// fields may be a few chunks apart.
func (p *Proxy) Stats() Stats {
	return Stats{
		Downstream: p.down.bytes.Load(),
		Upstream:   p.up.bytes.Load(),
		Conns:      p.conns.Load(),
		Active:     p.active.Load(),
		DialErrors: p.dialErrors.Load(),
		Rate:       units.ByteRate(p.rate.Load()),
	}
}

// Close stops accepting, closes every relayed connection and waits until all
// of the proxy's goroutines have returned. It is safe to call more than once;
// later calls return the first call's result.
func (p *Proxy) Close() error {
	p.once.Do(func() {
		p.cancel()
		p.wg.Wait()
	})
	return p.closeErr
}

// shutdown closes the listener and every open connection. It runs once, from
// the watcher goroutine, when p.ctx is done.
func (p *Proxy) shutdown() {
	conns := p.mark(func() { p.closed = true })
	if err := p.ln.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		p.closeErr = fmt.Errorf("close listener %s: %w", p.ln.Addr(), err)
	}
	for _, c := range conns {
		c.Close()
	}
}

// mark sets a state under the lock (closed, cut) and returns the open
// connections then, for the caller to close.
func (p *Proxy) mark(set func()) []net.Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	set()
	conns := make([]net.Conn, 0, len(p.open))
	for c := range p.open {
		conns = append(conns, c)
	}
	return conns
}

// track registers c so shutdown (and Cut) closes it; it reports false (and
// closes c) when the proxy is shutting down or cut.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.cut {
		c.Close()
		return false
	}
	p.open[c] = struct{}{}
	return true
}

func (p *Proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.open, c)
	p.mu.Unlock()
}

func (p *Proxy) report(err error) {
	if p.onError != nil && err != nil {
		p.onError(err)
	}
}

// acceptLoop accepts clients until the listener is closed. Temporary errors
// (such as running out of file descriptors) are retried with a backoff.
func (p *Proxy) acceptLoop() {
	backoff := 5 * time.Millisecond
	for {
		c, err := p.ln.Accept()
		if err != nil {
			if p.ctx.Err() != nil {
				return
			}
			p.report(fmt.Errorf("accept on %s: %w (retrying in %v)", p.Addr(), err, backoff))
			select {
			case <-time.After(backoff):
			case <-p.ctx.Done():
				return
			}
			backoff = min(2*backoff, time.Second)
			continue
		}
		backoff = 5 * time.Millisecond
		p.conns.Add(1)
		if !p.track(c) {
			if p.ctx.Err() != nil {
				return
			}
			continue // cut: the client was closed
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.relay(c)
		}()
	}
}

// relay dials the upstream for client c and pumps both directions until both
// have ended, or until either fails.
func (p *Proxy) relay(c net.Conn) {
	p.active.Add(1)
	defer p.active.Add(-1)
	defer p.untrack(c)
	defer c.Close()

	if p.gate.wait(p.ctx) != nil {
		return
	}
	d := net.Dialer{Timeout: dialTimeout}
	u, err := d.DialContext(p.ctx, network(p.upstream), p.upstream)
	if err != nil {
		if p.ctx.Err() == nil {
			p.dialErrors.Add(1)
			p.report(fmt.Errorf("connect to upstream %s for client %s: %w (is the upstream running and reachable?)",
				p.upstream, c.RemoteAddr(), err))
		}
		return
	}
	if !p.track(u) {
		return
	}
	defer p.untrack(u)
	defer u.Close()
	if p.rate.Load() == 0 {
		tuneUnlimited(c)
		tuneUnlimited(u)
	}

	var abortOnce sync.Once
	abort := func() {
		abortOnce.Do(func() {
			c.Close()
			u.Close()
		})
	}
	errc := make(chan error, 2)
	go func() { errc <- pump(p.ctx, &p.up, &p.gate, u, c, abort) }()
	go func() { errc <- pump(p.ctx, &p.down, &p.gate, c, u, abort) }()
	for range 2 {
		if err := <-errc; err != nil {
			abort()
			if p.ctx.Err() == nil && !errors.Is(err, net.ErrClosed) {
				p.report(fmt.Errorf("relay %s <-> %s: %w", c.RemoteAddr(), p.upstream, err))
			}
		}
	}
}

// tuneUnlimited asks for large kernel socket buffers, which lets the relay
// move data in big steps. Failures only cost throughput, so they are ignored.
func tuneUnlimited(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetReadBuffer(unlimitedSocketBuffer)
		_ = tc.SetWriteBuffer(unlimitedSocketBuffer)
	}
}
