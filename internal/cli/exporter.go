package cli

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/lagscope/lagscope/internal/exporter"
	"github.com/lagscope/lagscope/internal/monitor"
	"github.com/lagscope/lagscope/internal/recorder"
)

type exporterOptions struct {
	exporter.Options
	pair         monitor.Options // the pair given by flags
	config       string
	window, step time.Duration
	recordSize   recorder.Size
}

// Validate builds the pairs from the flags or the --config file.
func (o *exporterOptions) Validate() error {
	d := o.pair.Diagnose
	if err := checkListen(o.Listen); err != nil {
		return err
	}
	switch {
	case o.config != "" && (d.Publisher != "" || d.Subscriber != "" || d.Physical()):
		return Usagef("--config lists the pairs: drop --publisher and --subscriber, --primary and --standby (or drop --config)")
	case o.config != "":
		c, err := exporter.ReadConfig(o.config)
		if err != nil {
			return Usage(err)
		}
		if c.Window == 0 {
			c.Window = o.window
		}
		if c.Step == 0 {
			c.Step = o.step
		}
		if c.ProbeHz == 0 {
			c.ProbeHz = d.ProbeHz
		}
		if o.Pairs, err = c.Monitors(os.Getenv); err != nil {
			return Usagef("--config %s: %v", o.config, err)
		}
		for i := range o.Pairs {
			o.Pairs[i].Diagnose.KeepQueryLiterals = d.KeepQueryLiterals
		}
	case d.Publisher == "" && !d.Physical():
		return Usagef("give --publisher (and --subscriber) for one pair, --primary and/or --standby for a physical standby, or --config FILE for several")
	default:
		p := o.pair
		p.Window, p.Step = o.window, o.step
		if err := p.Validate(); err != nil {
			return Usage(err)
		}
		o.Pairs = []monitor.Options{p}
	}
	if err := o.Options.Validate(); err != nil {
		return Usage(err)
	}
	if o.Record.Dir != "" {
		for _, p := range o.Pairs {
			if _, err := recorder.PathDir(o.Record.Dir, p.Pair); err != nil {
				return Usagef("--record: %v", err)
			}
		}
		if o.Record.RetainAge < 0 || o.Record.SegmentEvery < 0 {
			return Usagef("--record-retain-age and --record-segment must be positive")
		}
		o.Record.RetainSize = int64(o.recordSize)
	}
	return nil
}

func newExporterCmd() *cobra.Command {
	o := &exporterOptions{}
	o.pair.Diagnose.Tick = time.Second
	c := &cobra.Command{
		Use:   "exporter",
		Short: "Serve the verdict and the figures behind it to Prometheus (/metrics), continuously",
		Long: `Keeps one or more replication pairs under observation - the same read-only
sessions and wait-event probes as 'lagscope diagnose' - and re-evaluates each
path's verdict every --step over the last --window, serving it at /metrics:

  lagscope_bottleneck{stage}            the limiting stage (1), every other (0)
  lagscope_verdict{verdict}             the verdict (1), every other (0)
  lagscope_verdict_confidence_ratio     how sure, from the measured margins
  lagscope_next_limit_headroom_ratio    how much faster until the next stage limits
  lagscope_lag_bytes{part}              not_sent, sent_not_flushed, flushed_not_confirmed
  lagscope_wal_{generated,decoded,confirmed}_bytes_total
  lagscope_cpu_seconds_total{role}      per process role (/proc of local servers)
  lagscope_runqueue_seconds_total{role}
  lagscope_wait_event_probes_total{role,wait_event_type,wait_event}
  lagscope_tablesync_slots{subscription,verdict}  tablesync slots, counted
  lagscope_up{server}, lagscope_path_info, lagscope_build_info

A physical standby's path (--primary and/or --standby, or primary:/standby:
in the file) has the path series above with standby set to its walsender's
application_name (or "standby" when that walsender is not known: the primary
not watched, or several standbys without slots), stages walsender, link,
walreceiver, startup, lag parts not_sent, in_flight, received_not_replayed;
and:

  lagscope_standby_replay_lag_bytes      WAL not replayed: 0 when all is replayed
  lagscope_standby_replay_lag_seconds    that in time (never now() - last replay timestamp)
  lagscope_standby_wal_bytes_per_second{position}  generated, sent, received, replayed
  lagscope_standby_catch_up_seconds      forecast; 0 nothing behind, +Inf never at this rate
  lagscope_standby_replay_paused, lagscope_standby_replay_delayed (0/1)
  lagscope_standby_conflict_cancels_total{kind}   queries cancelled by replay

Tablesync slots (one per table being copied) share one slot label,
slot="pg_*_sync_*"; a slot gone for 3 steps leaves the exposition. A name
that is not valid UTF-8 is exported with its odd bytes as \xNN.

A scrape never waits for a database. A server that goes away shows as
lagscope_up 0 within one step and is retried with a growing backoff (at most
30 s); the exporter keeps serving the other pairs.

Several pairs come from a YAML file (--config):

  window: 30s
  step: 10s
  pairs:
    - name: orders-eu
      publisher: host=db1 dbname=app user=lagscope
      subscriber: host=db2 dbname=app user=lagscope
      subscriber_password_env: DB2_PASSWORD   # optional; else ~/.pgpass, PGPASSWORD
      subscription: orders_sub                # optional: only this path
    - name: cdc
      publisher: host=db3 dbname=app user=lagscope   # a consumer that is not PostgreSQL
    - name: orders-eu-replica                 # a physical standby
      primary: host=db1 dbname=postgres user=lagscope
      standby: host=db1r dbname=postgres user=lagscope
      standby_password_env: DB1R_PASSWORD     # optional; primary_password_env too

A pair is logical (publisher, subscriber, slot, subscription) or physical
(primary and/or standby: the standby alone shows its receiver and replay, the
primary alone every standby it feeds), never both.

Passwords are never read from the file, and never appear in labels or logs.
TLS and basic auth for /metrics come from a Prometheus web config file
(--web.config.file; https://prometheus.io/docs/prometheus/latest/configuration/https/).
Grafana dashboard: docs/grafana/lagscope.json; alerts: docs/prometheus/alerts.yml.

--record DIR also writes the samples every step takes to DIR/<pair> (the same
samples: no second sampler), for 'lagscope diagnose --from-recording' on any
past window (docs/recorder.md). A write that fails (a full file system) stops
that pair's recording with one log line and lagscope_recorder_up 0; the
exporter keeps serving.

Exit codes: 0 stopped by SIGINT/SIGTERM, 2 usage error (bad flag, config or
listen address), 3 the HTTP server failed.`,
		Example: `  lagscope exporter --publisher 'host=pub dbname=app user=monitor' --subscriber 'host=sub dbname=app user=monitor'
  lagscope exporter --config pairs.yaml --listen :9752 --web.config.file web.yml
  curl -s localhost:9752/metrics | grep lagscope_bottleneck`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil))
			o.Log = log
			o.Ready = func(a net.Addr) {
				log.Info("serving /metrics", "address", a.String(), "pairs", len(o.Pairs), "window", o.Pairs[0].Window, "step", o.Pairs[0].Step)
			}
			if err := exporter.Run(cmd.Context(), o.Options); err != nil {
				return &ExitError{Code: ExitFailure, Err: fmt.Errorf("exporter: %w", err)}
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&o.Listen, "listen", exporter.DefaultListen, "address to serve /metrics on (host:port; ':9752' for every interface)")
	f.StringVar(&o.WebConfig, "web.config.file", "", "Prometheus web config file for TLS and basic auth")
	f.StringVar(&o.config, "config", "", "YAML file listing the pairs (see above)")
	f.StringVar(&o.pair.Pair, "name", "default", "the pair's name (label pair) when given by flags")
	f.StringVar(&o.pair.Diagnose.Publisher, "publisher", "", "publisher connection string (keyword/value or URI)")
	f.StringVar(&o.pair.Diagnose.Subscriber, "subscriber", "", "subscriber connection string; omit for consumers that are not PostgreSQL subscribers")
	f.StringVar(&o.pair.Diagnose.Primary, "primary", "", "a physical standby's primary (connection string); alone, every standby it feeds")
	f.StringVar(&o.pair.Diagnose.Standby, "standby", "", "a physical standby (connection string): its WAL receiver and replay")
	f.StringVar(&o.pair.Diagnose.Slot, "slot", "", "watch only this slot")
	f.StringVar(&o.pair.Diagnose.Subscription, "subscription", "", "watch only this subscription's slot")
	f.BoolVar(&o.pair.Diagnose.KeepQueryLiterals, "keep-query-literals", false, "keep the constants in the captured query text of lock blockers and open transactions (by default they are replaced with $1, $2, ... before anything is shown or saved; passwords are hidden either way)")
	f.BoolVar(&o.pair.Diagnose.NoProc, "no-proc", false, "do not read /proc (servers on another host or in a container)")
	f.Float64Var(&o.pair.Diagnose.ProbeHz, "probe-hz", 0, "wait-event probes per second per server (default: 10 where this host's /proc shows the server's processes, which give their CPU and run-queue figures; 20 where it does not)")
	f.DurationVar(&o.window, "window", monitor.DefaultWindow, "how much of the recent past each verdict weighs")
	f.DurationVar(&o.step, "step", monitor.DefaultStep, "how often the verdict is re-evaluated (at least 2s, at most --window)")
	f.StringVar(&o.Record.Dir, "record", "", "also write each step's samples to DIR/<pair> for 'lagscope diagnose --from-recording' (created 0700)")
	f.DurationVar(&o.Record.RetainAge, "record-retain-age", recorder.DefaultRetainAge, "with --record: remove segments older than this")
	o.recordSize = recorder.Size(recorder.DefaultRetainSize)
	f.Var(&o.recordSize, "record-retain-size", "with --record: remove a pair's oldest segments while its recording takes more than this (512MiB, 2GB, unlimited)")
	f.DurationVar(&o.Record.SegmentEvery, "record-segment", recorder.DefaultSegmentEvery, "with --record: how long one segment covers")
	return c
}

// checkListen refuses a --listen that is not host:port with a port number.
func checkListen(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err == nil {
		var n int
		if _, err = fmt.Sscanf(port, "%d", &n); err == nil && (n < 0 || n > 65535 || fmt.Sprint(n) != port) {
			err = errors.New("bad port")
		}
	}
	if err != nil {
		return Usagef("--listen %q: use host:port, such as 127.0.0.1:9752 or :9752 for every interface", addr)
	}
	return nil
}
