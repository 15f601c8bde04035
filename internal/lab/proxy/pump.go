package proxy

import (
	"context"
	"errors"
	"github.com/lagscope/lagscope/internal/sleep"
	"io"
	"net"
	"sync/atomic"

	"golang.org/x/time/rate"
)

// link is one direction of the emulated link, shared by all connections.
type link struct {
	limiter atomic.Pointer[rate.Limiter] // nil = unlimited
	bytes   atomic.Uint64                // bytes written to the destination
}

// closeWriter is a connection that can be half-closed (*net.TCPConn).
type closeWriter interface {
	CloseWrite() error
}

// pump copies src to dst through l until src ends, then half-closes dst so the
// other side sees EOF while the opposite direction keeps flowing. A reader and
// a writer run concurrently with up to pipelineDepth buffers between them.
// When a rate is set, the reader takes tokens (WaitN) for every chunk before
// handing it to the writer. On a write error pump calls abort, which must
// close both connections so the reader stops too. It returns nil when src
// ended cleanly (EOF) and everything was written. While g is closed (the
// link frozen) what was read waits.
func pump(ctx context.Context, l *link, g *gate, dst, src net.Conn, abort func()) error {
	slots := make(chan []byte, pipelineDepth) // free buffers; nil = not allocated yet
	for range pipelineDepth {
		slots <- nil
	}
	full := make(chan []byte, pipelineDepth)
	werr := make(chan error, 1)
	go func() { werr <- writeChunks(l, dst, full, slots, abort) }()

	rerr := readChunks(ctx, l, g, src, full, slots)
	close(full)
	if err := <-werr; err != nil {
		return err
	}
	if rerr != nil {
		return rerr
	}
	if cw, ok := dst.(closeWriter); ok {
		if err := cw.CloseWrite(); err != nil && !errors.Is(err, net.ErrClosed) {
			return err
		}
	}
	return nil
}

// readChunks reads src into free buffers and queues them on full, paying the
// limiter first. It returns nil at EOF.
func readChunks(ctx context.Context, l *link, g *gate, src net.Conn, full chan<- []byte, slots chan []byte) error {
	grown := firstChunk
	for {
		buf := <-slots
		lim := l.limiter.Load()
		n := chunkSize(lim, grown)
		if cap(buf) < n {
			buf = make([]byte, max(n, firstChunk))
		}
		k, err := src.Read(buf[:n])
		if k > 0 {
			if werr := g.wait(ctx); werr != nil {
				return werr
			}
			if lim != nil {
				if werr := waitTokens(ctx, lim, k); werr != nil {
					return werr
				}
			}
			full <- buf[:k]
			if k == n && grown < unlimitedChunk {
				grown *= 2
			}
			if lim != nil && k < n/2 {
				// A short read: let small writes pile up in the socket.
				if werr := sleep.For(ctx, coalesceDelay); werr != nil {
					return werr
				}
			}
		} else {
			slots <- buf
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// waitTokens blocks until lim allows n bytes, in steps no larger than its burst.
func waitTokens(ctx context.Context, lim *rate.Limiter, n int) error {
	for n > 0 {
		step := min(n, lim.Burst())
		if err := lim.WaitN(ctx, step); err != nil {
			return err
		}
		n -= step
	}
	return nil
}

// writeChunks writes every queued buffer to dst and returns it to slots. After
// a write error it aborts the connection and keeps returning buffers unwritten,
// so the reader never blocks on a slot.
func writeChunks(l *link, dst net.Conn, full <-chan []byte, slots chan<- []byte, abort func()) error {
	var failed error
	for buf := range full {
		if failed == nil {
			k, err := dst.Write(buf)
			l.bytes.Add(uint64(k))
			if err != nil {
				failed = err
				abort()
			}
		}
		slots <- buf[:cap(buf)]
	}
	return failed
}
