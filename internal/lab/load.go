package lab

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lagscope/lagscope/internal/lab/cluster"
	"github.com/lagscope/lagscope/internal/proc"
	"github.com/lagscope/lagscope/internal/safefile"
	"github.com/lagscope/lagscope/internal/sleep"
)

// LoadOptions describe a pgbench run of seed 000's workload.
type LoadOptions struct {
	PGBench string // path to pgbench
	Clients int    // seed 000: 16
	Rows    int    // rows in hot
	// TPS limits the total transaction rate (0 = as fast as possible).
	TPS  int
	CPUs []int // pin pgbench here (nil = no pinning)
	// Script is the pgbench script ("" = seed 000's updateScript); it may
	// use :rows.
	Script string
	// Transactions is how many transactions each client runs before
	// pgbench exits (0 = run until Stop).
	Transactions int
}

// updateScript is seed 000's transaction: a 20-row range UPDATE.
const updateScript = `\set a random(1, :rows - 19)
UPDATE hot SET k = k + 1, v = :a WHERE id BETWEEN :a AND :a + 19;
`

// singleUpdateScript changes one row a transaction.
const singleUpdateScript = `\set a random(1, :rows)
UPDATE hot SET k = k + 1 WHERE id = :a;
`

// Load is a running pgbench.
type Load struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
	log  string
	dsn  string // the cluster pgbench writes to, for Stop's wait
}

// StartLoad starts pgbench against c's lab database; it runs until Stop.
func StartLoad(ctx context.Context, c *cluster.Cluster, o LoadOptions) (*Load, error) {
	text, name := updateScript, "update.sql"
	if o.Script != "" {
		text, name = o.Script, "custom.sql"
	}
	script := filepath.Join(c.Dir, "..", name)
	if err := safefile.WriteFile(script, []byte(text)); err != nil {
		return nil, fmt.Errorf("write pgbench script: %w", err)
	}
	jobs := o.Clients
	if jobs > 4 {
		jobs = 4
	}
	args := []string{o.PGBench, "-n", "-h", c.SocketDir, "-p", strconv.Itoa(c.Port), "-U", cluster.Superuser,
		"-c", strconv.Itoa(o.Clients), "-j", strconv.Itoa(jobs), "-D", "rows=" + strconv.Itoa(o.Rows), "-f", script}
	if o.Transactions > 0 {
		args = append(args, "-t", strconv.Itoa(o.Transactions))
	} else {
		args = append(args, "-T", "86400")
	}
	if o.TPS > 0 {
		args = append(args, "-R", strconv.Itoa(o.TPS))
	}
	args = append(args, Database)
	if len(o.CPUs) > 0 {
		ts, err := exec.LookPath("taskset")
		if err != nil {
			return nil, fmt.Errorf("pinning pgbench needs taskset (apt-get install util-linux)")
		}
		args = append([]string{ts, "-c", proc.FormatCPUList(o.CPUs)}, args...)
	}
	logPath := filepath.Join(c.Dir, "..", "pgbench.log")
	// A fresh file of root's alone: never through a link planted at the name.
	_ = os.Remove(logPath)
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_EXCL|os.O_WRONLY|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start pgbench: %w", err)
	}
	l := &Load{cmd: cmd, done: make(chan struct{}), log: logPath, dsn: c.ConnString(Database)}
	go func() { l.err = cmd.Wait(); logf.Close(); close(l.done) }()
	// pgbench fails fast on a bad connection or script: give it a moment.
	select {
	case <-l.done:
		if o.Transactions > 0 && l.err == nil {
			return l, nil // a short fixed run may end this soon
		}
		b, _ := os.ReadFile(logPath)
		return nil, fmt.Errorf("pgbench exited at once: %s", lastLine(string(b)))
	case <-time.After(300 * time.Millisecond):
	case <-ctx.Done():
		l.Stop()
		return nil, ctx.Err()
	}
	return l, nil
}

// Stop ends pgbench (and its threads), waits for it, then waits for its
// sessions on the server to end (sessionsGone): a statement in flight when
// pgbench dies still runs and commits, so the load has stopped writing
// only once they are gone.
func (l *Load) Stop() {
	if l == nil {
		return
	}
	select {
	case <-l.done:
		return
	default:
	}
	_ = syscall.Kill(-l.cmd.Process.Pid, syscall.SIGKILL)
	<-l.done
	l.sessionsGone()
}

// sessionsGone waits (5 s at most, 20 ms a look) until the server has no
// session of pgbench's (application_name pgbench) left; a server that
// cannot be reached has none to wait for.
func (l *Load) sessionsGone() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, l.dsn)
	if err != nil {
		return
	}
	defer conn.Close(context.Background())
	for {
		var n int
		if conn.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pgbench'").Scan(&n) != nil || n == 0 {
			return
		}
		if sleep.For(ctx, 20*time.Millisecond) != nil {
			return
		}
	}
}

// Wait waits for a run of fixed length (LoadOptions.Transactions) to end
// and reports whether pgbench failed; on ctx's end it stops pgbench.
func (l *Load) Wait(ctx context.Context) error {
	select {
	case <-l.done:
	case <-ctx.Done():
		l.Stop()
		return ctx.Err()
	}
	if l.err != nil {
		b, _ := os.ReadFile(l.log)
		return fmt.Errorf("pgbench: %v: %s", l.err, lastLine(string(b)))
	}
	return nil
}

// Running reports whether pgbench still runs.
func (l *Load) Running() bool {
	select {
	case <-l.done:
		return false
	default:
		return true
	}
}

func lastLine(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\n') {
		s = s[:len(s)-1]
	}
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '\n' {
			return s[i+1:]
		}
	}
	return s
}
