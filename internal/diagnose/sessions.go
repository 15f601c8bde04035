package diagnose

import (
	"context"
	"sync"

	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/sample"
)

// Sessions keeps one observing session per server between the reads of a
// run (preflight, the sampling window, the setup read) and, in watch and
// the exporter, between steps: each new session costs the server about
// 20 ms of CPU to start (docs/log/performance.md). A session is handed out to
// one user at a time and kept again when that user is done with it.
type Sessions struct {
	open sample.Connector
	mu   sync.Mutex
	kept map[string]*pg.Conn
}

// NewSessions keeps the sessions that open makes.
func NewSessions(open sample.Connector) *Sessions {
	return &Sessions{open: open, kept: map[string]*pg.Conn{}}
}

// Connect hands out side's kept session, or opens one (a sample.Connector).
func (s *Sessions) Connect(ctx context.Context, side string) (*pg.Conn, error) {
	s.mu.Lock()
	c := s.kept[side]
	delete(s.kept, side)
	s.mu.Unlock()
	if c != nil && !c.IsClosed() {
		return c, nil
	}
	return s.open(ctx, side)
}

// Keep takes back a session for side's next user (closing one kept before
// it); a closed session is dropped.
func (s *Sessions) Keep(side string, c *pg.Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := s.kept[side]; old != nil && old != c {
		old.Close()
	}
	if c == nil || c.IsClosed() {
		delete(s.kept, side)
		return
	}
	s.kept[side] = c
}

// peek is side's kept session, still kept (nil when none is open): for a
// read that runs alone between the others (the setup read).
func (s *Sessions) peek(side string) *pg.Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.kept[side]; c != nil && !c.IsClosed() {
		return c
	}
	return nil
}

// Close closes the kept sessions.
func (s *Sessions) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for side, c := range s.kept {
		c.Close()
		delete(s.kept, side)
	}
}
