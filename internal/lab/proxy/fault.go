package proxy

import (
	"context"
	"sync"
)

// The link's faults, for tests that break a path the way networks break it:
// Freeze stops every byte while keeping the connections open (a path that
// drops packets, with no FIN or RST: the ends learn of it only from their
// own timeouts); Cut closes every connection and refuses new ones (a reset
// path, a killed middlebox); Restore ends either.

// gate holds traffic while the link is frozen. Its zero value is open.
type gate struct {
	mu     sync.Mutex
	frozen chan struct{} // non-nil while frozen; closed when thawed
}

// wait returns at once while the gate is open, and otherwise when it is
// thawed or ctx is done.
func (g *gate) wait(ctx context.Context) error {
	g.mu.Lock()
	ch := g.frozen
	g.mu.Unlock()
	if ch == nil {
		return nil
	}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *gate) freeze() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.frozen == nil {
		g.frozen = make(chan struct{})
	}
}

func (g *gate) thaw() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.frozen != nil {
		close(g.frozen)
		g.frozen = nil
	}
}

// Freeze stops relaying in both directions without closing anything: bytes
// already read wait in the proxy, the senders' socket buffers fill, and a
// client that connects meanwhile is accepted but reaches nothing. Restore
// lets it all through.
func (p *Proxy) Freeze() { p.gate.freeze() }

// Cut closes every relayed connection (both ends see the close at once) and
// closes each new client as soon as it is accepted, until Restore.
func (p *Proxy) Cut() {
	for _, c := range p.mark(func() { p.cut = true }) {
		c.Close()
	}
}

// Restore ends a Freeze or a Cut: the link relays again.
func (p *Proxy) Restore() {
	p.mu.Lock()
	p.cut = false
	p.mu.Unlock()
	p.gate.thaw()
}
