package reproduce

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/lab/cluster"
	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/proc"
	"github.com/lagscope/lagscope/internal/safefile"
)

// Small helpers shared by the experiments: starting a cluster, server CPU
// snapshots, a fixed-size pgbench run, a marker row to time catch-up, polling,
// and data checksums.

// startCluster creates and starts one cluster of the lab, pinned to cpus
// (nil = not pinned), with the lab's default settings plus settings.
func startCluster(ctx context.Context, l *cluster.Lab, name, bin string, cpus []int, settings map[string]string) (*cluster.Cluster, error) {
	c, err := l.Create(ctx, cluster.Options{Name: name, Bin: bin, CPUs: cpus, Settings: settings})
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// serverVersion returns SHOW server_version (e.g. "16.14") and the major
// version (16) of the server at dsn.
func serverVersion(ctx context.Context, dsn string) (string, int, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return "", 0, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.Background())
	var text string
	var num int
	if err := conn.QueryRow(ctx, "SELECT /* lagscope */ current_setting('server_version'), current_setting('server_version_num')::int").Scan(&text, &num); err != nil {
		return "", 0, fmt.Errorf("read server version: %w", err)
	}
	return text, num / 10000, nil
}

// cpuReader reads the CPU time of a process tree; proc.FS is one.
type cpuReader interface {
	TreeCPU(pid int) (time.Duration, error)
}

var _ cpuReader = proc.FS{}

// serverCPU reads the CPU used so far by each cluster's whole server (the
// postmaster, its live children and the children it reaped). A nil cluster
// reads as 0. The difference of two snapshots is the servers' CPU in between.
func serverCPU(r cpuReader, clusters ...*cluster.Cluster) ([]time.Duration, error) {
	out := make([]time.Duration, len(clusters))
	for i, c := range clusters {
		if c == nil {
			continue
		}
		pid := c.PID()
		if pid == 0 {
			return nil, fmt.Errorf("%s server is not running: see %s", c.Name, filepath.Join(c.Dir, "server.log"))
		}
		d, err := r.TreeCPU(pid)
		if err != nil {
			return nil, fmt.Errorf("read %s server CPU: %w", c.Name, err)
		}
		out[i] = d
	}
	return out, nil
}

// pgbenchRun is one pgbench run of a fixed number of transactions.
type pgbenchRun struct {
	PGBench string // path to pgbench
	Target  *cluster.Cluster
	DB      string
	// Script is the transaction script's text; it is written next to the
	// target's directory.
	Script       string
	Clients      int
	Jobs         int
	Transactions int   // per client
	CPUs         []int // pin pgbench here (nil = not pinned)
}

// run runs pgbench to its end and returns when it ended.
func (p pgbenchRun) run(ctx context.Context) (time.Time, error) {
	dir := filepath.Dir(p.Target.Dir)
	script := filepath.Join(dir, "pgbench-script.sql")
	if err := safefile.WriteFile(script, []byte(p.Script)); err != nil {
		return time.Time{}, fmt.Errorf("write pgbench script: %w", err)
	}
	args := []string{p.PGBench, "-n", "-h", p.Target.SocketDir, "-p", strconv.Itoa(p.Target.Port), "-U", cluster.Superuser,
		"-c", strconv.Itoa(p.Clients), "-j", strconv.Itoa(p.Jobs), "-t", strconv.Itoa(p.Transactions), "-f", script, p.DB}
	if len(p.CPUs) > 0 {
		ts, err := exec.LookPath("taskset")
		if err != nil {
			return time.Time{}, errors.New("pinning pgbench needs taskset (apt-get install util-linux)")
		}
		args = append([]string{ts, "-c", proc.FormatCPUList(p.CPUs)}, args...)
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.CombinedOutput()
	end := time.Now()
	if err != nil {
		return end, fmt.Errorf("pgbench: %w: %s", err, lastOutputLines(string(out), 3))
	}
	if strings.Contains(string(out), "failed") && !strings.Contains(string(out), "number of failed transactions: 0") {
		return end, fmt.Errorf("pgbench reported failed transactions: %s", lastOutputLines(string(out), 5))
	}
	return end, nil
}

func lastOutputLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// markerDDL creates the marker table; it belongs in the publication so that
// its row travels behind every change made before it.
const markerDDL = "CREATE TABLE lagscope_marker (id integer PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())"

// insertMarker inserts marker row id on conn, in its own transaction, and
// returns a WAL position inside that transaction: the marker's commit record
// lies after it, and no other transaction commits between them when the load
// has ended. The marker commits with synchronous_commit = on, so its WAL (and
// all WAL before it) is flushed at once and a walsender can send it: with the
// lab's asynchronous commit it would wait for the WAL writer (up to a few
// hundred ms), which would be counted as drain or apply time.
func insertMarker(ctx context.Context, conn *pgx.Conn, id int) (lsn.LSN, error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("insert marker row: %w", err)
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(ctx, "SET LOCAL synchronous_commit = on"); err != nil {
		return 0, fmt.Errorf("insert marker row: %w", err)
	}
	var at string
	err = tx.QueryRow(ctx, "INSERT /* lagscope */ INTO lagscope_marker (id) VALUES ($1) RETURNING pg_current_wal_insert_lsn()::text", id).Scan(&at)
	if err != nil {
		return 0, fmt.Errorf("insert marker row: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, fmt.Errorf("commit marker row: %w", err)
	}
	return lsn.Parse(at)
}

// markerVisible returns a condition that holds once marker row id is
// queryable through conn.
func markerVisible(conn *pgx.Conn, id int) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		var n int
		err := conn.QueryRow(ctx, "SELECT /* lagscope */ count(*) FROM lagscope_marker WHERE id = $1", id).Scan(&n)
		return n > 0, err
	}
}

// pollUntil evaluates cond every interval until it holds and returns the
// time it was first seen to hold. It fails after timeout, naming what.
func pollUntil(ctx context.Context, interval, timeout time.Duration, what string, cond func(context.Context) (bool, error)) (time.Time, error) {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := cond(ctx)
		if err != nil {
			return time.Time{}, fmt.Errorf("wait for %s: %w", what, err)
		}
		if ok {
			return time.Now(), nil
		}
		if time.Now().After(deadline) {
			return time.Time{}, fmt.Errorf("%s did not happen within %s", what, timeout)
		}
		select {
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-time.After(interval):
		}
	}
}

// queryTrue returns a condition that holds when q (one boolean column, one
// row; no row is false) returns true at dsn, on a fresh connection each time.
// For waits outside measured windows.
func queryTrue(dsn, q string) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			return false, err
		}
		defer conn.Close(context.Background())
		var ok bool
		err = conn.QueryRow(ctx, q).Scan(&ok)
		if errors.Is(err, pgx.ErrNoRows) {
			return false, nil
		}
		return ok, err
	}
}

// checksum returns a text digest of a query's single value at dsn, e.g.
// "count(*) || '/' || sum(id)"; equal digests on both sides mean equal data.
func checksum(ctx context.Context, dsn, q string) (string, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return "", fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.Background())
	var s string
	if err := conn.QueryRow(ctx, q).Scan(&s); err != nil {
		return "", fmt.Errorf("checksum: %w", err)
	}
	return s, nil
}

// compareData checksums the same query on publisher and subscriber; it
// returns a failure line ("" when equal) naming what.
func compareData(ctx context.Context, pubDSN, subDSN, q, what string) (string, error) {
	a, err := checksum(ctx, pubDSN, q)
	if err != nil {
		return "", fmt.Errorf("publisher: %w", err)
	}
	b, err := checksum(ctx, subDSN, q)
	if err != nil {
		return "", fmt.Errorf("subscriber: %w", err)
	}
	if a != b {
		return fmt.Sprintf("%s: data differ after the drain: publisher %s, subscriber %s (count/checksums)", what, a, b), nil
	}
	return "", nil
}
