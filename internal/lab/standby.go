package lab

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/lagscope/lagscope/internal/lab/cluster"
	"github.com/lagscope/lagscope/internal/lab/proxy"
	"github.com/lagscope/lagscope/internal/quote"
	"github.com/lagscope/lagscope/internal/sleep"
	"github.com/lagscope/lagscope/internal/units"
)

// The names of the publisher's physical standby: its application_name (in
// pg_stat_replication and synchronous_standby_names), its physical slot on
// the publisher, and its own standby's application_name (a cascade).
const (
	StandbyApp   = "lab_standby"
	PhysicalSlot = "lab_standby"
	CascadeApp   = "lab_cascade"
)

// StandbyOptions describe the publisher's physical standby. The zero value
// is a hot standby on the subscriber's CPUs, streaming through an unlimited
// link with PostgreSQL's defaults for everything else.
type StandbyOptions struct {
	// CPUs pins the standby (and its cascade) here (nil = the
	// subscriber's CPUs: the lab's one CPU per server).
	CPUs []int
	// LinkRate is the rate of the proxy link the standby streams through
	// (0 = unlimited).
	LinkRate units.ByteRate
	// MaxStandbyStreamingDelay, RecoveryMinApplyDelay and SharedBuffers
	// are the standby's settings of those names ("" = the server's
	// default; the lab's shared_buffers otherwise).
	MaxStandbyStreamingDelay string
	RecoveryMinApplyDelay    string
	SharedBuffers            string
	// HotStandbyFeedback turns hot_standby_feedback on.
	HotStandbyFeedback bool
	// Cascade gives the standby a standby of its own (CascadeApp), on the
	// same CPUs, streaming from it directly.
	Cascade bool
}

// settings are the standby's server settings: streaming through the link
// in linkDir to the publisher's port, on its slot, and o's.
func (o StandbyOptions) settings(linkDir string, port int) map[string]string {
	s := map[string]string{
		"primary_conninfo":     fmt.Sprintf("'host=%s port=%d user=%s application_name=%s'", linkDir, port, cluster.Superuser, StandbyApp),
		"primary_slot_name":    "'" + PhysicalSlot + "'",
		"hot_standby":          "on",
		"hot_standby_feedback": "off",
	}
	if o.HotStandbyFeedback {
		s["hot_standby_feedback"] = "on"
	}
	for name, v := range map[string]string{
		"max_standby_streaming_delay": o.MaxStandbyStreamingDelay,
		"recovery_min_apply_delay":    o.RecoveryMinApplyDelay,
		"shared_buffers":              o.SharedBuffers,
	} {
		if v != "" {
			s[name] = "'" + v + "'"
		}
	}
	return s
}

// Standby is the publisher's physical standby, made by AddStandby.
type Standby struct {
	Opts StandbyOptions
	// Server is the standby; Cascade its own standby (nil without
	// Opts.Cascade).
	Server  *cluster.Cluster
	Cascade *cluster.Cluster
	link    *proxy.Proxy
	linkDir string
	// Holder is the standby session holding a snapshot replay conflicts
	// with (nil = none).
	Holder *SnapshotHolder
	// evictor keeps the standby's data out of the page cache (nil = none).
	evictor *cacheEvictor
	// paused says the lab paused the standby's replay.
	paused bool
	// cycle is how the backlog was built (nil = no catch-up scenario);
	// watch times the catch-up from the release (nil = not released).
	cycle *cycleSpec
	watch *catchUpWatch
	// decoder decodes a logical slot on the standby (nil = none).
	decoder *standbyDecoder
}

// ConnString reaches the lab's database on the standby.
func (s *Standby) ConnString() string { return s.Server.ConnString(Database) }

// CascadeConnString reaches the lab's database on the cascade ("" without
// one).
func (s *Standby) CascadeConnString() string {
	if s.Cascade == nil {
		return ""
	}
	return s.Cascade.ConnString(Database)
}

// Link is the proxy the standby streams through.
func (s *Standby) Link() *proxy.Proxy { return s.link }

// DataDir is the standby's data directory.
func (s *Standby) DataDir() string { return s.Server.DataDir }

// PhysicalStandby is the publisher's physical standby (nil = none).
func (p *Pair) PhysicalStandby() *Standby { return p.physical }

// AddStandby gives the publisher a physical standby (StandbyApp) made as
// the lab makes every server (the lab's account, removed with the pair): a
// copy of the publisher's data directory, streaming through its own proxy
// link at o.LinkRate on a physical slot (PhysicalSlot) of the publisher,
// hot_standby on, pinned to o.CPUs; with o.Cascade, a standby of the
// standby (CascadeApp). It returns once each streams.
func (p *Pair) AddStandby(ctx context.Context, o StandbyOptions, log io.Writer) (*Standby, error) {
	if p.physical != nil {
		return nil, fmt.Errorf("the publisher already has a lab standby")
	}
	if log == nil {
		log = io.Discard
	}
	if o.CPUs == nil {
		o.CPUs = p.Opts.SubCPUs
	}
	s := &Standby{Opts: o, linkDir: filepath.Join(p.Lab.Dir, "standby-link")}
	p.physical = s
	// The slot first: it keeps the WAL from before the copy's checkpoint.
	if err := Exec(ctx, p.Pub.ConnString(Database), quote.SQL("SELECT pg_create_physical_replication_slot(%L, true)", PhysicalSlot).Text); err != nil {
		return nil, fmt.Errorf("publisher: %w", err)
	}
	upstream := fmt.Sprintf("%s/.s.PGSQL.%d", p.Pub.SocketDir, p.Pub.Port)
	var err error
	// Unlimited until the standby (and its cascade) stream: a restart
	// fetches the standby's last segment again, 16 MB.
	if s.link, err = p.startLink(ctx, s.linkDir, upstream, p.Pub.Port, 0); err != nil {
		return nil, fmt.Errorf("start the standby's link: %w", err)
	}
	fmt.Fprintf(log, "lab: the publisher gets a physical standby (%s, CPUs %v, slot %s) behind a %s link\n", StandbyApp, o.CPUs, PhysicalSlot, o.LinkRate)
	if s.Server, err = p.Lab.Standby(ctx, p.Pub, cluster.Options{Name: "standby", Bin: p.Opts.Bin, CPUs: o.CPUs, Settings: o.settings(s.linkDir, p.Pub.Port)}); err != nil {
		return nil, fmt.Errorf("make the publisher's standby: %w", err)
	}
	if err = s.Server.Start(ctx); err != nil {
		return nil, fmt.Errorf("start the publisher's standby: %w", err)
	}
	if err = waitStreaming(ctx, p.Pub, StandbyApp, s.Server); err != nil {
		return nil, err
	}
	if !o.Cascade {
		s.link.SetRate(o.LinkRate)
		return s, nil
	}
	fmt.Fprintf(log, "lab: the standby gets a standby of its own (%s, a cascade)\n", CascadeApp)
	settings := map[string]string{
		"primary_conninfo":         fmt.Sprintf("'host=%s port=%d user=%s application_name=%s'", s.Server.SocketDir, s.Server.Port, cluster.Superuser, CascadeApp),
		"hot_standby":              "on",
		"recovery_min_apply_delay": "0",
	}
	if o.SharedBuffers != "" {
		settings["shared_buffers"] = "'" + o.SharedBuffers + "'"
	}
	if s.Cascade, err = p.Lab.Standby(ctx, s.Server, cluster.Options{Name: "cascade", Bin: p.Opts.Bin, CPUs: o.CPUs, Settings: settings}); err != nil {
		return nil, fmt.Errorf("make the standby's standby: %w", err)
	}
	if err = s.Cascade.Start(ctx); err != nil {
		return nil, fmt.Errorf("start the standby's standby: %w", err)
	}
	if err = waitStreaming(ctx, s.Server, CascadeApp, s.Cascade); err != nil {
		return nil, err
	}
	// The standby restarted for the copy: it streams again before its link
	// slows down.
	if err = waitStreaming(ctx, p.Pub, StandbyApp, s.Server); err != nil {
		return nil, err
	}
	s.link.SetRate(o.LinkRate)
	return s, nil
}

// waitStreaming waits until upstream streams to the standby named app (at
// most 30 s).
func waitStreaming(ctx context.Context, upstream *cluster.Cluster, app string, standby *cluster.Cluster) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		state, err := Query[string](ctx, upstream.ConnString("postgres"),
			"SELECT coalesce(max(state), '') FROM pg_stat_replication WHERE application_name = '"+app+"'")
		if ok, _ := Query[bool](ctx, upstream.ConnString("postgres"),
			"SELECT count(*) > 0 FROM pg_stat_replication WHERE state = 'streaming' AND application_name = '"+app+"'"); err == nil && ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not stream from %s within 30 s (state %q); see %s/server.log", app, upstream.Name, state, standby.Dir)
		}
		if err := sleep.For(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}

// closePhysical ends what the physical standby holds outside its servers
// (the lab stops those): the snapshot holder, the evictor, the link.
func (p *Pair) closePhysical() {
	s := p.physical
	if s == nil {
		return
	}
	s.releaseSnapshot()
	s.evictor.stop()
	s.evictor = nil
	if s.link != nil {
		s.link.Close()
	}
}
