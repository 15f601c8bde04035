package monitor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
)

// Defaults of Options.
const (
	DefaultWindow = 30 * time.Second
	DefaultStep   = 10 * time.Second
	// MaxBackoff is the longest wait between attempts to reach a server
	// that does not answer.
	MaxBackoff = 30 * time.Second
	// SetupEvery is how often the pair's setup is read again between
	// preflights: the workers and slots in use (the exporter's limits)
	// change while the settings and the schema rarely do.
	SetupEvery = 5 * time.Minute
)

// Options describe one pair and how it is watched.
type Options struct {
	// Pair names the path in metrics and logs (required).
	Pair string
	// Diagnose holds the servers, the slot or subscription, the probe rate
	// and /proc use; its Duration is not used.
	Diagnose diagnose.Options
	// Window is how much of the recent past each verdict weighs (0 =
	// DefaultWindow); Step is how often it is re-evaluated (0 =
	// DefaultStep, at most Window).
	Window, Step time.Duration
	// OnTick, if set, receives every tick as it is read (once a second,
	// from the sampler's goroutine): live positions between verdicts.
	OnTick func(sample.Tick)
}

// Validate checks the options and fills the defaults.
func (o *Options) Validate() error {
	if o.Pair == "" {
		return errors.New("a pair needs a name")
	}
	if o.Window == 0 {
		o.Window = DefaultWindow
	}
	if o.Step == 0 {
		o.Step = min(DefaultStep, o.Window)
	}
	if o.Step < 2*time.Second || o.Step > o.Window {
		return fmt.Errorf("pair %s: step %s must be at least 2s and at most the window (%s)", o.Pair, o.Step, o.Window)
	}
	d := o.Diagnose
	d.Duration = o.Step
	if err := d.Validate(); err != nil {
		return fmt.Errorf("pair %s: %w", o.Pair, err)
	}
	o.Diagnose = d
	return nil
}

// Update is what one step produced.
type Update struct {
	Pair string
	At   time.Time
	// Step is the samples of this step alone (nil when it failed): the
	// exporter's counters add up steps, so no second is counted twice.
	Step *sample.Recording
	// Report is the diagnosis of the rolling window ending with this step
	// (nil when the step failed).
	Report *report.Report
	// Window is the rolling window's samples (nil when the step failed).
	Window *sample.Recording
	// Down maps a side ("publisher", "subscriber") that could not be
	// sampled to why; a side absent from Down answered.
	Down map[string]string
	// Err is why the step failed (nil when it did not).
	Err error
}

// Run watches the pair until ctx ends, calling publish after every step
// (from Run's goroutine). o must have passed Validate.
func Run(ctx context.Context, o Options, publish func(Update)) {
	w := &watcher{o: o, down: map[string]string{}}
	defer w.closeKept()
	backoff := time.Second
	for ctx.Err() == nil {
		u := w.step(ctx)
		if ctx.Err() != nil {
			return
		}
		publish(u)
		if u.Err == nil {
			backoff = time.Second
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, MaxBackoff, o.Window)
	}
}

// watcher is Run's state between steps.
type watcher struct {
	o        Options
	prepared bool
	slots    []string
	steps    []*sample.Recording // the rolling window, oldest first
	mu       sync.Mutex
	down     map[string]string // side -> last connection error, this step
	setup    json.RawMessage   // the pair's setup, read at the preflight
	setupErr string
	setupAt  time.Time // when setup was read
	// ss keeps a session per server between steps, and between the
	// preflight, the setup read and the window of a step: a step reuses
	// them and reconnects only after a failure.
	ss *diagnose.Sessions
}

// sessions are the watcher's kept sessions (made at first use).
func (w *watcher) sessions() *diagnose.Sessions {
	if w.ss == nil {
		w.ss = diagnose.NewSessions(w.o.Diagnose.Connector())
	}
	return w.ss
}

// connect hands out the side's kept session, or opens one like diagnose
// does and notes which side failed.
func (w *watcher) connect(ctx context.Context, side string) (*pg.Conn, error) {
	c, err := w.sessions().Connect(ctx, side)
	if err != nil {
		w.mu.Lock()
		w.down[side] = pg.Redact(err.Error())
		w.mu.Unlock()
	}
	return c, err
}

func (w *watcher) step(ctx context.Context) Update {
	if err := w.prepare(ctx); err != nil {
		return w.failed(Update{Pair: w.o.Pair}, err)
	}
	so := w.o.Diagnose.SampleOptions(w.o.Step)
	so.Release = w.sessions().Keep
	so.OnTick = w.o.OnTick
	var rec *sample.Recording
	var err error
	if w.o.Diagnose.Physical() {
		rec, err = w.physicalStep(ctx, so)
	} else {
		rec, err = sample.Run(ctx, w.connect, so)
	}
	if err != nil {
		return w.failed(Update{Pair: w.o.Pair}, err)
	}
	return w.finish(rec)
}

// physicalStep samples a physical standby's path for one step: the
// primary and/or the standby the options name (diagnose.RunPhysical's
// sampling).
func (w *watcher) physicalStep(ctx context.Context, so sample.Options) (*sample.Recording, error) {
	nw, err := sample.RunNodes(ctx, w.connect, w.o.Diagnose.PhysicalNodes(), so)
	if err != nil {
		return nil, err
	}
	return diagnose.PhysicalRecording(nw)
}

// prepare starts a step: the preflight when the pair is not prepared (the
// first step, and again after a failure), and the setup read when it is
// due.
func (w *watcher) prepare(ctx context.Context) error {
	w.mu.Lock()
	clear(w.down)
	w.mu.Unlock()
	if !w.prepared && w.o.Diagnose.Physical() {
		// A physical path has no slot to select nor a logical setup to
		// read: its preflight checks which server is which.
		if err := diagnose.PhysicalPreflight(ctx, w.connect, w.sessions().Keep, w.o.Diagnose); err != nil {
			return err
		}
		w.prepared = true
		return nil
	}
	if w.o.Diagnose.Physical() {
		return nil
	}
	if !w.prepared {
		slots, err := diagnose.Preflight(ctx, w.connect, w.sessions().Keep, w.o.Diagnose)
		if err != nil {
			return err
		}
		w.slots, w.prepared = slots, true
		// At each preflight (again after a failure: a restarted server
		// may have been changed), and every SetupEvery.
		w.setupAt = time.Time{}
	}
	if w.setupAt.IsZero() || time.Since(w.setupAt) >= SetupEvery {
		w.setup, w.setupErr = diagnose.ReadSetup(ctx, w.o.Diagnose, w.sessions())
		w.setupAt = time.Now()
	}
	return nil
}

// finish ends a step whose samples are rec: the rolling window and its
// diagnosis.
func (w *watcher) finish(rec *sample.Recording) Update {
	u := Update{Pair: w.o.Pair}
	u.At, u.Step = rec.End, rec
	w.steps = append(w.steps, rec)
	w.steps = Trim(w.steps, w.o.Window)
	u.Window = sample.Merge(w.steps...)
	u.Window.Setup, u.Window.SetupError = w.setup, w.setupErr
	var rep report.Report
	if w.o.Diagnose.Physical() {
		rep = diagnose.BuildPhysical(u.Window, w.o.Diagnose.ProbeHz)
	} else {
		rep = diagnose.Build(u.Window, w.slots, w.o.Diagnose.ProbeHz)
	}
	u.Report = &rep
	u.Down = stepDown(rec)
	return u
}

// closeKept closes the sessions kept between steps.
func (w *watcher) closeKept() {
	if w.ss != nil {
		w.ss.Close()
	}
}

// failed ends a step that could not sample: the window starts again (a
// restarted server's counters and slots are new), and so do the preflight
// and the sessions.
func (w *watcher) failed(u Update, err error) Update {
	u.At, u.Err = time.Now(), err
	w.prepared, w.steps = false, nil
	w.closeKept()
	w.mu.Lock()
	defer w.mu.Unlock()
	u.Down = map[string]string{}
	for side, why := range w.down {
		u.Down[side] = why
	}
	answered := errors.Is(err, diagnose.ErrNothingToDiagnose) || errors.Is(err, diagnose.ErrInRecovery)
	var side *sample.SideError
	switch {
	case len(u.Down) > 0:
	case answered:
		// A server with no slot (or subscription) left, or a standby,
		// answered: it is up, with nothing to watch (Err says so).
	case errors.As(err, &side):
		// Connected, then could not read (privileges, no answer).
		u.Down[side.Side] = pg.Redact(err.Error())
	case w.o.Diagnose.Physical():
		// Connected but could not read: the first server the preflight
		// reads.
		side := string(sample.StandbyNode)
		if w.o.Diagnose.Primary != "" {
			side = string(sample.PrimaryNode)
		}
		u.Down[side] = pg.Redact(err.Error())
	default:
		// Connected but could not read (wal_level, a preflight query):
		// blame the publisher, where preflight and sampling start.
		u.Down[sample.Publisher] = pg.Redact(err.Error())
	}
	return u
}

// Trim keeps the newest steps that end within window of the newest one's
// end (the newest always stays).
func Trim(steps []*sample.Recording, window time.Duration) []*sample.Recording {
	if len(steps) == 0 {
		return steps
	}
	end := steps[len(steps)-1].End
	i := 0
	for i < len(steps)-1 && end.Sub(steps[i].Start) > window+window/10 {
		i++
	}
	return steps[i:]
}

// stepDown lists the sides that did not answer at the step's end: a gap
// still open then (the sampler closes a gap at the first tick that answers
// again), or no answered tick at all. The last tick alone does not say it:
// the step's deadline interrupts its reads.
func stepDown(rec *sample.Recording) map[string]string {
	down := map[string]string{}
	for _, g := range rec.Gaps {
		if g.To.Equal(rec.End) {
			down[g.Side] = g.Cause
		}
	}
	for _, n := range rec.Nodes {
		if _, ok := down[string(n.ID)]; ok {
			continue
		}
		answered := false
		for i := range rec.Ticks {
			answered = answered || rec.Ticks[i].Read(n.ID).OK
		}
		if !answered {
			down[string(n.ID)] = "did not answer"
		}
	}
	return down
}
