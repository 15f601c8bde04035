package lab

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/lagscope/lagscope/internal/lab/cluster"
	"github.com/lagscope/lagscope/internal/lab/proxy"
	"github.com/lagscope/lagscope/internal/sleep"
	"github.com/lagscope/lagscope/internal/units"
)

// SubStandbyName is the subscriber's synchronous standby's name (its
// application_name, in synchronous_standby_names).
const SubStandbyName = "sub_standby"

// syncStandby is a physical standby of the subscriber that its commits wait
// for, reached through a rate-limited link.
type syncStandby struct {
	server *cluster.Cluster
	link   *proxy.Proxy
}

// AddSyncStandby gives the subscriber a physical standby (sub_standby,
// pinned to the publisher's CPUs) that replicates through a link of rate
// bytes/s, makes it the subscriber's synchronous standby, and sets
// synchronous_commit = on for every subscription: each transaction the
// apply worker commits then waits (SyncRep) until the standby has flushed
// it, as with a synchronous standby in another data centre.
func (p *Pair) AddSyncStandby(ctx context.Context, rate units.ByteRate, log io.Writer) (err error) {
	if p.standby != nil {
		return fmt.Errorf("the subscriber already has a lab standby")
	}
	sb := &syncStandby{}
	p.standby = sb
	linkDir := filepath.Join(p.Lab.Dir, "standby-link")
	upstream := fmt.Sprintf("%s/.s.PGSQL.%d", p.Sub.SocketDir, p.Sub.Port)
	if sb.link, err = p.startLink(ctx, linkDir, upstream, p.Sub.Port, rate); err != nil {
		return fmt.Errorf("start the standby's link: %w", err)
	}
	fmt.Fprintf(log, "lab: the subscriber gets a synchronous standby (%s) behind a %s link\n", SubStandbyName, rate)
	if sb.server, err = p.Lab.Standby(ctx, p.Sub, cluster.Options{Name: "sub-standby", Bin: p.Opts.Bin, CPUs: p.Opts.PubCPUs, Settings: map[string]string{
		"primary_conninfo": fmt.Sprintf("'host=%s port=%d user=%s application_name=%s'", linkDir, p.Sub.Port, cluster.Superuser, SubStandbyName),
	}}); err != nil {
		return fmt.Errorf("make the subscriber's standby: %w", err)
	}
	if err = sb.server.Start(ctx); err != nil {
		return fmt.Errorf("start the subscriber's standby: %w", err)
	}
	stmts := []string{"ALTER SYSTEM SET synchronous_standby_names = '" + SubStandbyName + "'", "SELECT pg_reload_conf()"}
	for _, s := range p.Subscriptions {
		stmts = append(stmts, "ALTER SUBSCRIPTION "+s+" SET (synchronous_commit = on)")
	}
	if err = Exec(ctx, p.Sub.ConnString(Database), stmts...); err != nil {
		return fmt.Errorf("subscriber: %w", err)
	}
	return p.waitSyncStandby(ctx)
}

// waitSyncStandby waits until the subscriber reports its standby as
// synchronous (at most 30 s).
func (p *Pair) waitSyncStandby(ctx context.Context) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		state, err := Query[string](ctx, p.Sub.ConnString(Database),
			"SELECT coalesce(max(sync_state), '') FROM pg_stat_replication WHERE application_name = '"+SubStandbyName+"'")
		if err == nil && strings.EqualFold(state, "sync") {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the subscriber's standby did not become synchronous within 30 s (sync_state %q); see %s/sub-standby/server.log", state, p.Lab.Dir)
		}
		if err := sleep.For(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}

// liftStandbyLink takes the rate limit off the standby's link, if any: the
// backlog then drains at full speed.
func (p *Pair) liftStandbyLink() {
	if p != nil && p.standby != nil && p.standby.link != nil {
		p.standby.link.SetRate(0)
	}
}

// closeStandbyLink closes the standby's link, if any (the lab stops the
// standby with the other servers).
func (p *Pair) closeStandbyLink() {
	if p != nil && p.standby != nil && p.standby.link != nil {
		p.standby.link.Close()
	}
}
