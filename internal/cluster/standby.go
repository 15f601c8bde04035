package cluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// Standby creates a physical standby of primary in the lab: it stops the
// primary, copies its data directory (a cleanly shut down cluster is a valid
// base backup, and a copy works across every server version, unlike a
// pg_basebackup of another major) without its replication slots, as a base
// backup has none, writes standby.signal and primary_conninfo
// (application_name = o.Name, for synchronous_standby_names; unless
// o.Settings routes primary_conninfo itself), and starts the
// primary again. The standby is created but not started.
func (l *Lab) Standby(ctx context.Context, primary *Cluster, o Options) (*Cluster, error) {
	if err := primary.Stop(); err != nil {
		return nil, err
	}
	c, err := l.newCluster(o)
	if err != nil {
		return nil, err
	}
	cp := exec.CommandContext(ctx, "cp", "-a", primary.DataDir, c.DataDir)
	cp.SysProcAttr = l.Owner.sysProcAttr(syscall.SIGKILL)
	if out, err := cp.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("copy %s's data directory: %w: %s", primary.Name, err, lastLines(string(out), 2))
	}
	os.Remove(filepath.Join(c.DataDir, "postmaster.pid"))
	// A base backup holds no replication slots (pg_basebackup leaves
	// pg_replslot empty): a copied one would stand in the way of the
	// standby's own, such as a synced copy of a failover slot.
	slots, _ := filepath.Glob(filepath.Join(c.DataDir, "pg_replslot", "*"))
	for _, d := range slots {
		if err := os.RemoveAll(d); err != nil {
			return nil, fmt.Errorf("clear the copy's replication slots: %w", err)
		}
	}
	signal := filepath.Join(c.DataDir, "standby.signal")
	if err := os.WriteFile(signal, nil, 0o600); err != nil {
		return nil, fmt.Errorf("write standby.signal: %w", err)
	}
	if err := l.Owner.chown(signal); err != nil {
		return nil, err
	}
	if c.opts.Settings == nil {
		c.opts.Settings = map[string]string{}
	}
	if _, routed := c.opts.Settings["primary_conninfo"]; !routed {
		c.opts.Settings["primary_conninfo"] = fmt.Sprintf("'host=%s port=%d user=%s application_name=%s'", primary.SocketDir, primary.Port, Superuser, o.Name)
	}
	c.opts.Settings["hot_standby"] = "on"
	if err := primary.start(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// Reconfigure stops the server, merges settings into its configuration and
// starts it again on the same port.
func (c *Cluster) Reconfigure(ctx context.Context, settings map[string]string) error {
	if err := c.Stop(); err != nil {
		return err
	}
	if c.opts.Settings == nil {
		c.opts.Settings = map[string]string{}
	}
	for k, v := range settings {
		c.opts.Settings[k] = v
	}
	if err := c.writeConf(); err != nil {
		return err
	}
	return c.start(ctx)
}
