package cluster

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/proc"
)

// Superuser is the bootstrap superuser of every lab cluster.
const Superuser = "postgres"

// Options describe one cluster to create in a Lab.
type Options struct {
	// Name is the cluster's directory name in the lab, e.g. "publisher".
	Name string
	// OwnInitdb runs initdb even where a template data directory is set
	// (TemplatesEnv): a server with a system identifier of its own.
	OwnInitdb bool
	// Bin is the directory holding initdb and postgres.
	Bin string
	// CPUs pins the server and every process it forks to these CPUs
	// (nil = no pinning). Requires taskset.
	CPUs []int
	// Settings are written to postgresql.conf after the defaults (LabSettings).
	Settings map[string]string
	// TCP makes the server listen on 127.0.0.1 as well as on its socket;
	// there the superuser logs in with scram-sha-256 and a password made for
	// the cluster, which TCPConnString reaches through a passfile. Without
	// it (and without SetTLS) the server has no TCP port at all.
	TCP bool
}

// Cluster is a disposable PostgreSQL server made by the lab.
//
// Its directory (Dir) is lagscope's (mode 0711): it holds server.log and the
// passfile, which only lagscope writes, and the two directories of the
// server's account, both 0700: the data directory and the socket directory.
// The server accepts connections on that socket only (trust: only its own
// account and root can reach it), and with Options.TCP or SetTLS on
// 127.0.0.1 with a password.
type Cluster struct {
	Name      string
	Dir       string // the cluster's directory (data/, sock/, server.log)
	DataDir   string
	SocketDir string
	// Port is the server's port: the number in its socket's name
	// (.s.PGSQL.<Port>) and, with TCP, its port on 127.0.0.1.
	Port int
	CPUs []int

	opts  Options
	owner Owner
	cmd   *exec.Cmd
	done  chan struct{} // closed when the postmaster exited
	err   error         // postmaster's exit status, valid after done
}

// LabSettings are the server settings every lab cluster gets: logical
// decoding on, durability off (the data is disposable), no log noise.
func LabSettings() map[string]string {
	return map[string]string{
		"wal_level":                       "logical",
		"max_wal_senders":                 "20",
		"max_replication_slots":           "20",
		"max_worker_processes":            "24",
		"max_logical_replication_workers": "12",
		"logical_decoding_work_mem":       "64MB",
		"fsync":                           "off",
		"synchronous_commit":              "off",
		"full_page_writes":                "off",
		"autovacuum":                      "off", // no background work competing for the pinned CPUs
		"shared_buffers":                  "256MB",
		"max_wal_size":                    "8GB",
		"checkpoint_timeout":              "30min",
		"max_connections":                 "100",
		"wal_sender_timeout":              "60s",
		"log_min_messages":                "warning",
		"log_line_prefix":                 "'%m [%p] %b '",
	}
}

// Create runs initdb for a new cluster in the lab (or copies the template
// data directory under $LAGSCOPE_LAB_TEMPLATES, see TemplatesEnv). The
// cluster is registered with the lab so Lab.Close stops it.
func (l *Lab) Create(ctx context.Context, o Options) (*Cluster, error) {
	c, err := l.newCluster(o)
	if err != nil {
		return nil, err
	}
	if root := os.Getenv(TemplatesEnv); root != "" && !o.OwnInitdb {
		err = l.fromTemplate(ctx, root, c, o)
	} else {
		err = l.initdb(ctx, o.Bin, c.DataDir, c.Dir, o.Name)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// newCluster makes the directories of a new cluster: its own (lagscope's,
// 0711) and in it the empty data and socket directories (the owner's,
// 0700), and registers it with the lab.
func (l *Lab) newCluster(o Options) (*Cluster, error) {
	if o.Name == "" || strings.ContainsAny(o.Name, "/ ") {
		return nil, fmt.Errorf("cluster name %q: use a plain word", o.Name)
	}
	dir := filepath.Join(l.Dir, o.Name)
	c := &Cluster{Name: o.Name, Dir: dir, DataDir: filepath.Join(dir, "data"), SocketDir: filepath.Join(dir, "sock"), CPUs: o.CPUs, opts: o, owner: l.Owner}
	if err := os.Mkdir(dir, 0o711); err != nil {
		return nil, fmt.Errorf("make %s: %w", dir, err)
	}
	if err := os.Chmod(dir, 0o711); err != nil { // past the umask
		return nil, fmt.Errorf("protect %s: %w", dir, err)
	}
	for _, d := range []string{c.DataDir, c.SocketDir} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, fmt.Errorf("make %s: %w", d, err)
		}
		if err := l.Owner.Give(d); err != nil {
			return nil, err
		}
	}
	l.clusters = append(l.clusters, c)
	return c, nil
}

// Start picks a free loopback port, writes the configuration and starts the
// server, waiting until it accepts connections.
func (c *Cluster) Start(ctx context.Context) error {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		port, err := freePort()
		if err != nil {
			return err
		}
		c.Port = port
		if err := c.writeConf(); err != nil {
			return err
		}
		if lastErr = c.start(ctx); lastErr == nil {
			return nil
		}
		if ctx.Err() != nil {
			return lastErr
		}
	}
	return lastErr
}

func (c *Cluster) start(ctx context.Context) error {
	args := []string{filepath.Join(c.opts.Bin, "postgres"), "-D", c.DataDir}
	if len(c.CPUs) > 0 {
		ts, err := exec.LookPath("taskset")
		if err != nil {
			return fmt.Errorf("pinning needs taskset: apt-get install util-linux, or pass empty --pub-cpus/--sub-cpus")
		}
		args = append([]string{ts, "-c", proc.FormatCPUList(c.CPUs)}, args...)
	}
	logf, err := openLog(c.Dir, "server.log")
	if err != nil {
		return fmt.Errorf("open server log: %w", err)
	}
	defer logf.Close()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = logf, logf
	// SIGQUIT on lagscope's death: immediate shutdown, so no server outlives it.
	cmd.SysProcAttr = c.owner.sysProcAttr(syscall.SIGQUIT)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s server: %w", c.Name, err)
	}
	c.cmd, c.done = cmd, make(chan struct{})
	go func() { c.err = cmd.Wait(); close(c.done) }()

	deadline := time.Now().Add(60 * time.Second)
	for {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		conn, err := pgx.Connect(cctx, c.ConnString("postgres"))
		cancel()
		if err == nil {
			if c.tcp() {
				err = c.setPassword(ctx, conn)
			}
			conn.Close(context.Background())
			if err != nil {
				c.Stop()
			}
			return err
		}
		select {
		case <-c.done:
			return fmt.Errorf("%s server exited during start-up (%v): %s", c.Name, c.err, lastLines(c.Log(), 3))
		case <-ctx.Done():
			c.Stop()
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			c.Stop()
			return fmt.Errorf("%s server did not accept connections within 60 s: %s", c.Name, lastLines(c.Log(), 3))
		}
	}
}

// PID is the postmaster's pid (0 when not running).
func (c *Cluster) PID() int {
	if c.cmd == nil || c.cmd.Process == nil || c.Exited() {
		return 0
	}
	return c.cmd.Process.Pid
}

// Exited reports whether a started server has exited.
func (c *Cluster) Exited() bool {
	if c.done == nil {
		return true
	}
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// shutdown is one signal to a postmaster and how long to wait for it to exit.
type shutdown struct {
	sig  syscall.Signal
	wait time.Duration
}

// Stop shuts the server down: fast shutdown, then immediate, then SIGKILL of
// its process group. Stopping a stopped cluster does nothing.
func (c *Cluster) Stop() error {
	return c.stop(shutdown{syscall.SIGINT, 20 * time.Second}, shutdown{syscall.SIGQUIT, 5 * time.Second})
}

// discard shuts the server down for good, its data about to be removed:
// immediate shutdown (no shutdown checkpoint), then SIGKILL of its process
// group.
func (c *Cluster) discard() error {
	return c.stop(shutdown{syscall.SIGQUIT, 5 * time.Second})
}

func (c *Cluster) stop(steps ...shutdown) error {
	if c.cmd == nil || c.Exited() {
		return nil
	}
	pid := c.cmd.Process.Pid
	for _, step := range steps {
		_ = syscall.Kill(pid, step.sig)
		select {
		case <-c.done:
			return nil
		case <-time.After(step.wait):
		}
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	select {
	case <-c.done:
		return nil
	case <-time.After(5 * time.Second):
		return fmt.Errorf("%s server (pid %d) did not stop", c.Name, pid)
	}
}

// Restart stops and starts the server on the same port.
func (c *Cluster) Restart(ctx context.Context) error {
	if err := c.Stop(); err != nil {
		return err
	}
	return c.start(ctx)
}

// StartAgain starts a stopped server again on the port it had, so that
// connection strings taken before still reach it (Start picks a new one).
func (c *Cluster) StartAgain(ctx context.Context) error {
	return c.start(ctx)
}

// ConnString is a libpq keyword/value connection string to db over the
// cluster's unix socket, which only root and the server's account can reach.
func (c *Cluster) ConnString(db string) string {
	return fmt.Sprintf("host=%s port=%d user=%s dbname=%s", c.SocketDir, c.Port, Superuser, db)
}

// Log returns the server log's content (empty if unreadable).
func (c *Cluster) Log() string {
	b, _ := os.ReadFile(filepath.Join(c.Dir, "server.log"))
	return string(b)
}

func (c *Cluster) writeConf() error {
	set := LabSettings()
	for k, v := range c.opts.Settings {
		set[k] = v
	}
	set["port"] = strconv.Itoa(c.Port)
	set["listen_addresses"] = "''"
	if c.tcp() {
		set["listen_addresses"] = "'127.0.0.1'"
	}
	set["password_encryption"] = "'scram-sha-256'"
	set["unix_socket_directories"] = "'" + c.SocketDir + "'"
	set["unix_socket_permissions"] = "0700"
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("# written by lagscope lab\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "%s = %s\n", k, set[k])
	}
	return writeOwned(c.owner, c.DataDir, "postgresql.auto.conf", []byte(b.String()))
}

// freePort asks the kernel for a free loopback TCP port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
