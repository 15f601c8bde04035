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

	"github.com/lagscope/lagscope/internal/cluster"
	"github.com/lagscope/lagscope/internal/proc"
)

// LoadOptions describe a pgbench run of seed 000's workload.
type LoadOptions struct {
	PGBench string // path to pgbench
	Clients int    // seed 000: 16
	Rows    int    // rows in hot
	// TPS limits the total transaction rate (0 = as fast as possible).
	TPS  int
	CPUs []int // pin pgbench here (nil = no pinning)
}

// updateScript is seed 000's transaction: a 20-row range UPDATE.
const updateScript = `\set a random(1, :rows - 19)
UPDATE hot SET k = k + 1, v = :a WHERE id BETWEEN :a AND :a + 19;
`

// Load is a running pgbench.
type Load struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
	log  string
}

// StartLoad starts pgbench against c's lab database; it runs until Stop.
func StartLoad(ctx context.Context, c *cluster.Cluster, o LoadOptions) (*Load, error) {
	script := filepath.Join(c.Dir, "..", "update.sql")
	if err := os.WriteFile(script, []byte(updateScript), 0o644); err != nil {
		return nil, fmt.Errorf("write pgbench script: %w", err)
	}
	jobs := o.Clients
	if jobs > 4 {
		jobs = 4
	}
	args := []string{o.PGBench, "-n", "-h", c.SocketDir, "-p", strconv.Itoa(c.Port), "-U", cluster.Superuser,
		"-c", strconv.Itoa(o.Clients), "-j", strconv.Itoa(jobs), "-T", "86400", "-D", "rows=" + strconv.Itoa(o.Rows), "-f", script}
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
	logf, err := os.Create(logPath)
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
	l := &Load{cmd: cmd, done: make(chan struct{}), log: logPath}
	go func() { l.err = cmd.Wait(); logf.Close(); close(l.done) }()
	// pgbench fails fast on a bad connection or script: give it a moment.
	select {
	case <-l.done:
		b, _ := os.ReadFile(logPath)
		return nil, fmt.Errorf("pgbench exited at once: %s", lastLine(string(b)))
	case <-time.After(300 * time.Millisecond):
	case <-ctx.Done():
		l.Stop()
		return nil, ctx.Err()
	}
	return l, nil
}

// Stop ends pgbench (and its threads) and waits for it.
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
