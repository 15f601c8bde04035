package lab

import (
	"context"
	"fmt"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/proc"
)

// Overhead is what one observing run cost, as shares of one core over its
// wall time.
type Overhead struct {
	DurationS float64 `json:"duration_s"`
	// PubBackends and SubBackends are the CPU shares of lagscope's own
	// backends (application_name = lagscope) on each server, summed.
	PubBackends float64 `json:"publisher_backends_cpu_share"`
	SubBackends float64 `json:"subscriber_backends_cpu_share"`
	// Process is the CPU share of the lagscope process itself.
	Process float64 `json:"lagscope_process_cpu_share"`
	// Sessions counts lagscope's sessions seen on each server.
	PubSessions int `json:"publisher_sessions"`
	SubSessions int `json:"subscriber_sessions"`
}

// MeasureOverhead runs observe (e.g. a diagnose run) against the pair and
// measures the CPU it costs: its backends on both servers (from /proc, by pid,
// polled every 200 ms so that no backend's CPU is missed before it exits) and
// this process (getrusage).
func MeasureOverhead(ctx context.Context, p *Pair, observe func(context.Context) error) (Overhead, error) {
	fs, err := proc.NewFS("")
	if err != nil {
		return Overhead{}, err
	}
	watch := func(dsn string) (*backendWatch, error) {
		c, err := pgx.Connect(ctx, dsn+" application_name=lagscope-lab")
		if err != nil {
			return nil, err
		}
		return &backendWatch{conn: c, fs: fs, cpu: map[int]time.Duration{}}, nil
	}
	pw, err := watch(p.Pub.ConnString(Database))
	if err != nil {
		return Overhead{}, err
	}
	defer pw.conn.Close(context.Background())
	sw, err := watch(p.Sub.ConnString(Database))
	if err != nil {
		return Overhead{}, err
	}
	defer sw.conn.Close(context.Background())

	var before syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- observe(ctx) }()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	var runErr error
loop:
	for {
		select {
		case runErr = <-done:
			break loop
		case <-tick.C:
			pw.poll(ctx)
			sw.poll(ctx)
		}
	}
	wall := time.Since(start)
	var after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	if runErr != nil {
		return Overhead{}, runErr
	}
	self := tv(after.Utime) + tv(after.Stime) - tv(before.Utime) - tv(before.Stime)
	o := Overhead{DurationS: wall.Seconds(), PubSessions: len(pw.cpu), SubSessions: len(sw.cpu)}
	o.PubBackends = pw.total().Seconds() / wall.Seconds()
	o.SubBackends = sw.total().Seconds() / wall.Seconds()
	// The two watchers' own polling runs in this process too; it is part of
	// the measurement here, so the process figure is an upper bound.
	o.Process = self.Seconds() / wall.Seconds()
	return o, nil
}

func tv(t syscall.Timeval) time.Duration {
	return time.Duration(t.Sec)*time.Second + time.Duration(t.Usec)*time.Microsecond
}

// backendWatch keeps the largest CPU figure seen per lagscope backend.
type backendWatch struct {
	conn *pgx.Conn
	fs   proc.FS
	cpu  map[int]time.Duration
}

func (w *backendWatch) poll(ctx context.Context) {
	rows, err := w.conn.Query(ctx, "SELECT pid FROM pg_stat_activity WHERE application_name = 'lagscope'")
	if err != nil {
		return
	}
	pids, _ := pgx.CollectRows(rows, pgx.RowTo[int32])
	for _, pid := range pids {
		ps, err := w.fs.Process(int(pid))
		if err != nil {
			continue
		}
		cpu := ps.CPU
		if ps.HasSchedstat {
			cpu = ps.Running
		}
		if cpu > w.cpu[int(pid)] {
			w.cpu[int(pid)] = cpu
		}
	}
}

func (w *backendWatch) total() time.Duration {
	var t time.Duration
	for _, c := range w.cpu {
		t += c
	}
	return t
}

// String prints the overhead as one line per figure.
func (o Overhead) String() string {
	return fmt.Sprintf("over %.0f s: lagscope's backends %.2f%% of one core on the publisher (%d sessions), %.2f%% on the subscriber (%d sessions); the lagscope process %.2f%%",
		o.DurationS, 100*o.PubBackends, o.PubSessions, 100*o.SubBackends, o.SubSessions, 100*o.Process)
}
