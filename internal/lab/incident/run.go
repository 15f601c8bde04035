package incident

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/exporter"
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/monitor"
	"github.com/lagscope/lagscope/internal/recorder"
	"github.com/lagscope/lagscope/internal/timeline"
)

// Options are a run's pair, script and recording.
type Options struct {
	// Pair is the pair to build (binaries, CPUs, rows); Run adds the link
	// and the flat layout.
	Pair    lab.PairOptions
	PGBench string
	Script  Script
	// Dir is the recording's directory (made if missing; it must be empty
	// or not exist).
	Dir string
	// Log receives a line per stretch (nil = discard).
	Log io.Writer
}

// Result is what a run made and what lagscope found in its recording.
type Result struct {
	Server    string              `json:"server_version"`
	Start     time.Time           `json:"start"`
	End       time.Time           `json:"end"`
	WindowS   float64             `json:"window_s"`
	Stretches []Stretch           `json:"stretches"`
	Incidents []timeline.Incident `json:"incidents"`
	Recording Recording           `json:"recording"`
	Overhead  Overhead            `json:"overhead"`
}

// OK says every stretch was found by the timeline and every live verdict
// given again from the recording.
func (r *Result) OK() bool {
	for _, s := range r.Stretches {
		if !s.OK || (s.Kind != Drain && (s.Live == nil || !s.Live.Same())) {
			return false
		}
	}
	return len(r.Stretches) > 0
}

// drainedBelow is when a stretch's backlog counts as drained: every
// slot's unconfirmed WAL under 2 MB (a light load keeps some in flight).
const drainedBelow = 2 << 20

// drainLimit bounds the wait for a backlog to drain.
const drainLimit = 10 * time.Minute

// Run builds the pair, records it through the script and checks the
// recording; the pair is removed on every path out.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	o.Pair.Link, o.Pair.LinkRate, o.Pair.Layout, o.Pair.Log = true, 0, lab.Flat, o.Log
	o.Pair.Purpose = "lab incidents"
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("recording directory: %w", err)
	}
	if ents, err := os.ReadDir(o.Dir); err != nil || len(ents) > 0 {
		return nil, fmt.Errorf("recording directory %s: want an empty directory (%v)", o.Dir, err)
	}
	p, err := lab.NewPair(ctx, o.Pair)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	r := &runner{p: p, o: o, s: o.Script}
	defer func() { r.load.Stop() }()
	if err := r.start(ctx); err != nil {
		return nil, err
	}
	res := &Result{WindowS: o.Script.Window.Seconds()}
	res.Server, _ = lab.Query[string](ctx, p.Pub.ConnString(lab.Database), "SHOW server_version")
	rec, err := startRecorder(ctx, p, o.Dir)
	if err != nil {
		return nil, err
	}
	defer rec.stop()
	for _, k := range Plan {
		sts, err := r.stretch(ctx, k)
		if err != nil {
			return nil, fmt.Errorf("%s stretch: %w", k, err)
		}
		for _, st := range sts {
			fmt.Fprintf(o.Log, "lab: %s %s to %s (%.0f s)\n", st.Kind, st.From.Format(time.TimeOnly), st.To.Format(time.TimeOnly), st.To.Sub(st.From).Seconds())
		}
		res.Stretches = append(res.Stretches, sts...)
		rec.memory()
	}
	res.Overhead = rec.overhead(ctx)
	if err := rec.stop(); err != nil {
		return nil, fmt.Errorf("recorder: %w", err)
	}
	res.Start, res.End = res.Stretches[0].From, res.Stretches[len(res.Stretches)-1].To
	if err := res.read(o.Dir, o.Script.Window); err != nil {
		return nil, err
	}
	return res, nil
}

// read reads the recording back: the timeline over the run, checked
// against the stretches, and each live diagnose's window diagnosed again.
func (res *Result) read(dir string, width time.Duration) error {
	tl, err := timeline.Read(dir, res.Start, res.End, width)
	if err != nil {
		return fmt.Errorf("timeline: %w", err)
	}
	res.Incidents = tl.Incidents
	Check(res.Stretches, tl.Incidents, width)
	for _, s := range res.Stretches {
		if l := s.Live; l != nil && l.Err == "" {
			l.Recorded, l.Err = recordedVerdict(dir, l.From, l.To)
		}
	}
	res.Recording, err = measureRecording(dir, res.End.Sub(res.Start))
	return err
}

// recordedVerdict is diagnose --from-recording over [from, to).
func recordedVerdict(dir string, from, to time.Time) (model.VerdictName, string) {
	rec, err := recorder.Read(dir, from, to)
	if err != nil {
		return "", err.Error()
	}
	rep, err := diagnose.FromRecording(rec, "", "", false, model.LinkRates{})
	if err != nil {
		return "", err.Error()
	}
	if len(rep.Paths) != 1 {
		return "", fmt.Sprintf("%d paths in the recorded window, want 1", len(rep.Paths))
	}
	return rep.Paths[0].Name, ""
}

// recorderRun is the recorder sampling the pair in the background, as
// 'lagscope record' does.
type recorderRun struct {
	w      *recorder.Writer
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	err    error
	once   sync.Once
	ov     *overheadWatch
}

// startRecorder starts sampling the pair into dir and returns once the
// first step is written (at most a minute).
func startRecorder(ctx context.Context, p *lab.Pair, dir string) (*recorderRun, error) {
	w, err := recorder.Open(recorder.Options{Dir: dir, Pair: "lab", RetainAge: -1, RetainSize: -1})
	if err != nil {
		return nil, err
	}
	mctx, cancel := context.WithCancel(ctx)
	r := &recorderRun{w: w, cancel: cancel, done: make(chan struct{})}
	first := make(chan struct{})
	var once sync.Once
	mo := monitor.Options{Pair: "lab", Step: 5 * time.Second, Window: 30 * time.Second,
		Diagnose: diagnose.Options{Publisher: p.Pub.ConnString(lab.Database), Subscriber: p.Sub.ConnString(lab.Database), Tick: time.Second}}
	if err := mo.Validate(); err != nil {
		cancel()
		w.Close()
		return nil, err
	}
	go func() {
		defer close(r.done)
		monitor.Run(mctx, mo, func(u monitor.Update) {
			if err := exporter.RecordUpdate(w, u); err != nil {
				r.mu.Lock()
				r.err = errors.Join(r.err, err)
				r.mu.Unlock()
			}
			once.Do(func() { close(first) })
		})
	}()
	select {
	case <-first:
	case <-time.After(time.Minute):
		r.stop()
		return nil, errors.New("the recorder wrote no step within a minute")
	case <-ctx.Done():
		r.stop()
		return nil, ctx.Err()
	}
	r.ov, err = watchOverhead(ctx, p)
	if err != nil {
		r.stop()
		return nil, err
	}
	return r, nil
}

// stop ends the sampling and closes the recording (once).
func (r *recorderRun) stop() error {
	r.once.Do(func() {
		r.cancel()
		<-r.done
		r.mu.Lock()
		r.err = errors.Join(r.err, r.w.Close())
		r.mu.Unlock()
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}
