package lab

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// HogApp is the application_name of the subscriber sessions that burn CPU
// in the subscriber-starved scenario.
const HogApp = "lab-cpu-hog"

// hogs are sessions on the subscriber each running a CPU-bound query; they
// share the subscriber's pinned CPU with its apply worker.
type hogs struct {
	conns []*pgx.Conn
	wg    sync.WaitGroup
}

// hogSQL keeps a backend on a CPU for up to ten minutes without I/O.
const hogSQL = "SELECT count(*) FROM generate_series(1, 10000000000)"

// StartHogs opens n sessions on the subscriber (application_name
// lab-cpu-hog), each running a CPU-bound query until StopHogs or Close: on
// the subscriber's pinned CPU the apply worker then waits on the run queue
// about n/(n+1) of the time.
func (p *Pair) StartHogs(ctx context.Context, n int) error {
	if p.hogs != nil {
		return fmt.Errorf("the subscriber already runs %d lab CPU hog(s)", len(p.hogs.conns))
	}
	h := &hogs{}
	for i := 0; i < n; i++ {
		conn, err := pgx.Connect(ctx, p.Sub.ConnString(Database)+" application_name="+HogApp+" statement_timeout=600s")
		if err != nil {
			h.stop()
			return fmt.Errorf("CPU hog: connect to the subscriber: %w", err)
		}
		h.conns = append(h.conns, conn)
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			conn.Exec(context.Background(), hogSQL) // ends with an error when cancelled
		}()
	}
	p.hogs = h
	return nil
}

// HogsRunning says whether the subscriber runs the lab's CPU-bound
// sessions (StartHogs, until StopHogs).
func (p *Pair) HogsRunning() bool { return p != nil && p.hogs != nil }

// StopHogs cancels the hogs' queries and closes their sessions, if any. It
// does not depend on a context: it runs on cancellation too.
func (p *Pair) StopHogs() {
	if p == nil || p.hogs == nil {
		return
	}
	p.hogs.stop()
	p.hogs = nil
}

func (h *hogs) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, c := range h.conns {
		c.PgConn().CancelRequest(ctx)
	}
	h.wg.Wait()
	for _, c := range h.conns {
		c.Close(ctx)
	}
}
