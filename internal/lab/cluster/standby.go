package cluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
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
	// As the server's account, into the empty data directory newCluster
	// made, and so is the removal of what a base backup would not hold: the
	// postmaster.pid, and the replication slots (pg_basebackup leaves
	// pg_replslot empty: a copied slot would stand in the way of the
	// standby's own, such as a synced copy of a failover slot). Root does
	// not walk a directory that account owns.
	const copyScript = `cp -a -- "$1/." "$2" && rm -f -- "$2/postmaster.pid" && find "$2/pg_replslot" -mindepth 1 -maxdepth 1 -exec rm -rf -- {} +`
	cp := exec.CommandContext(ctx, "/bin/sh", "-c", copyScript, "sh", primary.DataDir, c.DataDir)
	cp.SysProcAttr = l.Owner.sysProcAttr(syscall.SIGKILL)
	if out, err := cp.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("copy %s's data directory: %w: %s", primary.Name, err, lastLines(string(out), 2))
	}
	if err := writeOwned(l.Owner, c.DataDir, "standby.signal", nil); err != nil {
		return nil, err
	}
	// The copy has the primary's superuser password (a standby cannot set
	// its own): it gets the primary's passfile.
	if pw, err := os.ReadFile(primary.PassFile()); err == nil {
		if err := os.WriteFile(c.PassFile(), pw, 0o600); err != nil {
			return nil, fmt.Errorf("write the standby's passfile: %w", err)
		}
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
