package exporter

import (
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lagscope/lagscope/internal/monitor"
	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/recorder"
)

// Record says where and how the exporter records the samples it takes
// (Options.Record): each pair in Dir/<pair> (recorder.PathDir).
type Record struct {
	// Dir is the root of the recordings ("" = no recording).
	Dir string
	// RetainAge and RetainSize are each pair's retention (0 = the
	// recorder's defaults).
	RetainAge  time.Duration
	RetainSize int64
	// SegmentEvery is how long a segment covers (0 = the recorder's
	// default).
	SegmentEvery time.Duration
}

// recorders are the exporter's writers, one per pair, fed from the steps
// the monitors publish (no second sampler), and their metrics.
type recorders struct {
	mu  sync.Mutex
	log *slog.Logger
	w   map[string]*recorder.Writer
	// logged marks a pair whose stopped recording was logged.
	logged map[string]bool
}

var (
	descRecUp = prometheus.NewDesc("lagscope_recorder_up",
		"Whether the pair's recording is being written (1) or stopped after a write failed (0: a full file system, say; the exporter keeps serving).",
		[]string{"pair"}, nil)
	descRecBytes = prometheus.NewDesc("lagscope_recorder_written_bytes_total",
		"Compressed bytes the pair's recording wrote since the exporter started.", []string{"pair"}, nil)
	descRecDisk = prometheus.NewDesc("lagscope_recorder_disk_bytes",
		"Bytes the pair's recording takes on disk now (after retention).", []string{"pair"}, nil)
	descRecLast = prometheus.NewDesc("lagscope_recorder_last_step_timestamp_seconds",
		"When the last step written to the pair's recording ended (Unix time).", []string{"pair"}, nil)
)

// openRecorders opens a writer per pair under r.Dir.
func openRecorders(r Record, pairs []monitor.Options, log *slog.Logger) (*recorders, error) {
	rs := &recorders{log: log, w: map[string]*recorder.Writer{}, logged: map[string]bool{}}
	for _, p := range pairs {
		dir, err := recorder.PathDir(r.Dir, p.Pair)
		if err != nil {
			rs.close()
			return nil, fmt.Errorf("--record: %w", err)
		}
		w, err := recorder.Open(recorder.Options{Dir: dir, Pair: p.Pair, RetainAge: r.RetainAge, RetainSize: r.RetainSize, SegmentEvery: r.SegmentEvery})
		if err != nil {
			rs.close()
			return nil, fmt.Errorf("--record %s: %w", r.Dir, err)
		}
		rs.w[p.Pair] = w
	}
	return rs, nil
}

// write records one step of a pair (RecordUpdate); a write that fails
// stops that pair's recording with one log line.
func (rs *recorders) write(u monitor.Update) {
	w := rs.w[u.Pair]
	if w == nil {
		return
	}
	err := RecordUpdate(w, u)
	if err == nil {
		return
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if !rs.logged[u.Pair] {
		rs.logged[u.Pair] = true
		rs.log.Error("recording stopped; the exporter keeps serving", "pair", u.Pair, "error", err.Error())
	}
}

// RecordUpdate writes one monitor step to w: its samples and the setup
// current then, or, for a failed step, the stretch since the last step
// written, with why each side was not sampled (a server that went away is
// a gap, not samples).
func RecordUpdate(w *recorder.Writer, u monitor.Update) error {
	switch {
	case u.Err == nil && u.Step != nil:
		var setup []byte
		setupErr := ""
		if u.Window != nil {
			setup, setupErr = u.Window.Setup, u.Window.SetupError
		}
		return w.Step(u.Step, setup, setupErr)
	case u.Err != nil:
		from := w.Status().Last
		if from.IsZero() || from.After(u.At) {
			from = u.At
		}
		return w.Down(from, u.At, u.Down, pg.Redact(u.Err.Error()))
	}
	return nil
}

// Describe sends the recorder metrics' descriptions.
func (rs *recorders) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descRecUp, descRecBytes, descRecDisk, descRecLast} {
		ch <- d
	}
}

// Collect sends each pair's recording state.
func (rs *recorders) Collect(ch chan<- prometheus.Metric) {
	for pair, w := range rs.w {
		st := w.Status()
		up := 1.0
		if w.Stopped() != nil {
			up = 0
		}
		ch <- constMetric(descRecUp, prometheus.GaugeValue, up, pair)
		ch <- constMetric(descRecBytes, prometheus.CounterValue, float64(st.Bytes), pair)
		ch <- constMetric(descRecDisk, prometheus.GaugeValue, float64(st.DiskBytes), pair)
		if !st.Last.IsZero() {
			ch <- constMetric(descRecLast, prometheus.GaugeValue, float64(st.Last.UnixNano())/1e9, pair)
		}
	}
}

// close ends every pair's current segment.
func (rs *recorders) close() {
	for _, w := range rs.w {
		w.Close()
	}
}
