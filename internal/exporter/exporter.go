package exporter

import (
	"context"
	"errors"
	"fmt"
	stdlog "log"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/exporter-toolkit/web"

	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/monitor"
	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/sample"
)

// DefaultListen is where the exporter listens unless told otherwise
// (9752: not taken in Prometheus's default port allocations list).
const DefaultListen = "127.0.0.1:9752"

// DefaultIdleTimeout is how long the server keeps a connection open with no
// request on it (Options.IdleTimeout): longer than the usual scrape
// intervals (15 s to 1 min), so that Prometheus reuses its connection,
// and short enough that idle connections do not pile up.
const DefaultIdleTimeout = 2 * time.Minute

// readHeaderTimeout bounds the reading of a request's header.
const readHeaderTimeout = 10 * time.Second

// Options of one exporter.
type Options struct {
	// Listen is the address to serve on (DefaultListen when empty).
	Listen string
	// WebConfig is a Prometheus web config file (TLS, basic auth); "" = plain HTTP.
	WebConfig string
	// Pairs are the watched pairs, each validated.
	Pairs []monitor.Options
	// Log receives one line per pair state change (reached, lost) and the
	// server's errors; nil discards.
	Log *slog.Logger
	// Ready, if set, is called with the bound address once serving.
	Ready func(addr net.Addr)
	// IdleTimeout closes a kept-alive connection after this long without
	// a request (0 = DefaultIdleTimeout).
	IdleTimeout time.Duration
	// Record, when its Dir is set, writes the samples each step takes to
	// disk (package recorder), each pair in its own directory.
	Record Record
}

// Validate checks the options.
func (o *Options) Validate() error {
	if o.Listen == "" {
		o.Listen = DefaultListen
	}
	if len(o.Pairs) == 0 {
		return errors.New("no pair to watch: give --publisher (and --subscriber), or --config FILE")
	}
	if o.WebConfig != "" {
		if err := web.Validate(o.WebConfig); err != nil {
			return fmt.Errorf("--web.config.file %s: %v", o.WebConfig, err)
		}
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.IdleTimeout == 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	return nil
}

// Run watches every pair and serves /metrics until ctx ends.
func Run(ctx context.Context, o Options) error {
	if err := o.Validate(); err != nil {
		return err
	}
	col := NewCollector(o.Pairs)
	reg := prometheus.NewRegistry()
	reg.MustRegister(col)
	var rec *recorders
	if o.Record.Dir != "" {
		var err error
		if rec, err = openRecorders(o.Record, o.Pairs, o.Log); err != nil {
			return err
		}
		defer rec.close()
		reg.MustRegister(rec)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", metricsHandler(reg, o.Log))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, "lagscope exporter: %d pair(s), metrics at /metrics\n", len(o.Pairs))
	})
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("--listen %s: the address is in use (another exporter, or another program): choose another address", o.Listen)
		}
		return fmt.Errorf("--listen %s: %v", o.Listen, err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: readHeaderTimeout, IdleTimeout: o.IdleTimeout,
		ErrorLog: oneLineLog(o.Log, slog.LevelWarn)}
	if o.Ready != nil {
		o.Ready(ln.Addr())
	}

	var wg sync.WaitGroup
	// Pairs of one publisher share its sampler: it is read once a step for
	// all of them (monitor.Groups).
	for _, pairs := range monitor.Groups(o.Pairs) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			up, failing := map[string]map[string]bool{}, map[string]string{}
			sides := map[string][]string{}
			for _, p := range pairs {
				up[p.Pair], sides[p.Pair] = map[string]bool{}, pairSides(p.Diagnose)
			}
			// A group whose watching fails in a way lagscope did not foresee
			// is started again after a pause: the others keep being served.
			for ctx.Err() == nil {
				watchGroup(ctx, o.Log, pairs, func(u monitor.Update) {
					col.Update(u)
					if rec != nil {
						rec.write(u)
					}
					logChanges(o.Log, u, up[u.Pair], sides[u.Pair])
					failing[u.Pair] = logFailure(o.Log, u, failing[u.Pair])
				})
				select {
				case <-ctx.Done():
				case <-time.After(monitor.MaxBackoff):
				}
			}
		}()
	}
	serveErr := make(chan error, 1)
	go func() {
		cfg := o.WebConfig
		serveErr <- web.Serve(ln, srv, &web.FlagConfig{WebConfigFile: &cfg}, o.Log)
	}()
	select {
	case <-ctx.Done():
	case err = <-serveErr:
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
	wg.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// metricsHandler serves reg's metrics. An error of one collector or one
// pair (an invalid metric) is logged on one line and the scrape still
// answers 200 with every other series (ContinueOnError); only a scrape
// that gathered nothing at all answers 500.
func metricsHandler(reg prometheus.Gatherer, log *slog.Logger) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError,
		ErrorLog: oneLineLog(log, slog.LevelError)})
}

// oneLineLog is a log.Logger for net/http and promhttp that sends each
// message to log on one line, stack traces and passwords removed: net/http
// follows a handler's panic with its stack, and client_golang puts a
// collector's panic stack into the error a scrape reports (one "* " line
// per error); the errors are kept, the stacks have no place in the log of
// a monitoring daemon.
func oneLineLog(log *slog.Logger, level slog.Level) *stdlog.Logger {
	return stdlog.New(lineWriter{log, level}, "", 0)
}

type lineWriter struct {
	log   *slog.Logger
	level slog.Level
}

func (w lineWriter) Write(p []byte) (int, error) {
	w.log.Log(context.Background(), w.level, withoutStacks(string(p)))
	return len(p), nil
}

// withoutStacks is msg on one line without its stack traces (from a
// "goroutine N [...]:" line or a "stack trace=" to the next "* " error),
// as valid UTF-8 with passwords removed.
func withoutStacks(msg string) string {
	var kept []string
	stack := false
	for _, l := range strings.Split(msg, "\n") {
		switch {
		case strings.HasPrefix(l, "* "):
			stack = false
		case stack:
			continue
		case strings.HasPrefix(l, "goroutine "):
			stack = true
			continue
		}
		if before, _, ok := strings.Cut(l, "stack trace="); ok {
			l, stack = before, true
		}
		if l = strings.TrimSpace(l); l != "" {
			kept = append(kept, l)
		}
	}
	return pg.Redact(strings.ToValidUTF8(strings.Join(kept, " "), "\uFFFD"))
}

// watchGroup runs the monitor of pairs that share a sampler, turning a
// panic into a log line (naming the first pair of the group).
func watchGroup(ctx context.Context, log *slog.Logger, pairs []monitor.Options, publish func(monitor.Update)) {
	defer func() {
		if r := recover(); r != nil {
			log.Error("watching the pair failed; starting again in 30 s", "pair", pairs[0].Pair, "pairs", len(pairs), "panic", fmt.Sprint(r))
		}
	}()
	monitor.RunGroup(ctx, pairs, publish)
}

// logFailure logs a failed step's error once while it stays the same, and
// the first step that works after it; it returns the error now logged.
func logFailure(log *slog.Logger, u monitor.Update, failing string) string {
	switch {
	case u.Err != nil && u.Err.Error() != failing:
		log.Warn("step failed", "pair", u.Pair, "error", u.Err.Error())
		return u.Err.Error()
	case u.Err != nil:
		log.Debug("step failed", "pair", u.Pair, "error", u.Err.Error())
		return failing
	case failing != "":
		log.Info("steps work again", "pair", u.Pair)
	}
	return ""
}

// pairSides are the servers a pair reads, by the names Update.Down uses:
// publisher (and subscriber), or a physical standby's primary and/or
// standby.
func pairSides(d diagnose.Options) []string {
	var out []string
	for _, s := range []struct {
		dsn, side string
	}{{d.Publisher, sample.Publisher}, {d.Subscriber, sample.Subscriber}, {d.Primary, string(sample.PrimaryNode)}, {d.Standby, string(sample.StandbyNode)}} {
		if s.dsn != "" {
			out = append(out, s.side)
		}
	}
	return out
}

// logChanges logs a server reached or lost, once per change.
func logChanges(log *slog.Logger, u monitor.Update, up map[string]bool, sides []string) {
	for _, side := range sides {
		why, down := u.Down[side]
		was, seen := up[side]
		if u.Err != nil && !down {
			continue // a failed step says nothing of a side it did not reach
		}
		switch {
		case down && (was || !seen):
			log.Warn("server unreachable", "pair", u.Pair, "server", side, "error", why)
		case !down && (!was || !seen):
			log.Info("server reached", "pair", u.Pair, "server", side)
		}
		up[side] = !down
	}
}
