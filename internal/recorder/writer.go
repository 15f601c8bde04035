package recorder

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/lagscope/lagscope/internal/safefile"
	"github.com/lagscope/lagscope/internal/sample"
)

// Options of a Writer.
type Options struct {
	// Dir is the path's directory (created 0700 when missing).
	Dir string
	// Pair names the path in the segments (informational).
	Pair string
	// SegmentEvery starts a new segment this often (0 =
	// DefaultSegmentEvery).
	SegmentEvery time.Duration
	// RetainAge removes segments whose last time is older than this (0 =
	// DefaultRetainAge; negative: no limit by age).
	RetainAge time.Duration
	// RetainSize removes the oldest segments while the segments take more
	// bytes than this (0 = DefaultRetainSize; negative: no limit by size).
	RetainSize int64
	// Now is the clock of retention (nil = time.Now).
	Now func() time.Time
}

func (o *Options) defaults() {
	if o.SegmentEvery <= 0 {
		o.SegmentEvery = DefaultSegmentEvery
	}
	if o.RetainAge == 0 {
		o.RetainAge = DefaultRetainAge
	}
	if o.RetainSize == 0 {
		o.RetainSize = DefaultRetainSize
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// Writer writes one path's recording. Its methods are safe to call from
// several goroutines. After a write fails (a full file system, say) the
// Writer stops: every later call returns the same error (Stopped) and
// writes nothing.
type Writer struct {
	mu      sync.Mutex
	o       Options
	idx     index
	f       *os.File // the current segment; nil before the first line
	cur     *segEntry
	setup   *setupLine // the setup written last
	stopped error
	status  Status
	// snap is status and stopped as of the last call, for Status and
	// Stopped: a scrape never waits for a write to the disk.
	smu     sync.Mutex
	snap    Status
	snapErr error
}

// Status is what a Writer has done: for metrics and a progress line.
type Status struct {
	// Steps and Bytes are written since Open (Bytes compressed).
	Steps int
	Bytes int64
	// Last is the end of the last step written.
	Last time.Time
	// DiskBytes is what the path's segments take on disk now.
	DiskBytes int64
	// Segments is how many segments the path holds now.
	Segments int
}

// Open starts writing the recording in o.Dir, after any segments already
// there (a restarted recorder appends new segments; the old stay).
func Open(o Options) (*Writer, error) {
	o.defaults()
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("recording directory: %w", err)
	}
	if err := os.Chmod(o.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("recording directory: %w", err)
	}
	w := &Writer{o: o}
	segs, err := listSegments(o.Dir)
	if err != nil {
		return nil, err
	}
	w.idx = index{Format: FormatVersion, Pair: o.Pair, Segments: segs}
	w.refreshDisk()
	w.publish()
	return w, nil
}

// Step writes one step's samples, and before them the pair's setup when it
// is not the one written last (setup, setupErr: as read then).
func (w *Writer) Step(step *sample.Recording, setup json.RawMessage, setupErr string) error {
	if step == nil {
		return errors.New("recorder: no step to write")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	defer w.publish()
	if w.stopped != nil {
		return w.stopped
	}
	var lines []line
	if err := w.rotate(step.Start); err != nil {
		return w.stop(err)
	}
	if w.setup == nil || !bytes.Equal(w.setup.Setup, setup) || w.setup.Error != setupErr {
		w.setup = &setupLine{At: step.Start, Setup: setup, Error: setupErr}
		lines = append(lines, line{Setup: w.setup})
	}
	s := *step
	s.Setup, s.SetupError = nil, ""
	lines = append(lines, line{Step: &s})
	if err := w.member(lines, step.Start, step.End); err != nil {
		return w.stop(err)
	}
	w.status.Steps++
	w.status.Last = step.End
	return nil
}

// Down writes a stretch in which the sampler could not sample (a failed
// step): sides maps each side that did not answer to why; stepErr is the
// step's error.
func (w *Writer) Down(from, to time.Time, sides map[string]string, stepErr string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	defer w.publish()
	if w.stopped != nil {
		return w.stopped
	}
	if err := w.rotate(from); err != nil {
		return w.stop(err)
	}
	if err := w.member([]line{{Down: &downLine{From: from, To: to, Sides: sides, Error: stepErr}}}, from, to); err != nil {
		return w.stop(err)
	}
	return nil
}

// Stopped is the error that stopped the Writer (nil while it writes).
func (w *Writer) Stopped() error {
	w.smu.Lock()
	defer w.smu.Unlock()
	return w.snapErr
}

// Status is what the Writer has written so far (as of the last call that
// returned: it does not wait for one writing).
func (w *Writer) Status() Status {
	w.smu.Lock()
	defer w.smu.Unlock()
	return w.snap
}

// publish copies the status for Status and Stopped; w.mu is held.
func (w *Writer) publish() {
	w.smu.Lock()
	w.snap, w.snapErr = w.status, w.stopped
	w.smu.Unlock()
}

// Close ends the current segment (synced to disk).
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Sync()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	w.f, w.cur = nil, nil
	return err
}

// stop keeps err as the reason the Writer stopped and closes the segment.
func (w *Writer) stop(err error) error {
	w.stopped = fmt.Errorf("recording in %s stopped: %w", w.o.Dir, err)
	if w.f != nil {
		w.f.Close()
		w.f, w.cur = nil, nil
	}
	return w.stopped
}

// rotate starts a new segment when none is open or the current one has
// covered SegmentEvery by at, and applies retention then.
func (w *Writer) rotate(at time.Time) error {
	if w.f != nil && at.Sub(w.cur.First) < w.o.SegmentEvery {
		return nil
	}
	if w.f != nil {
		err := w.f.Sync()
		if cerr := w.f.Close(); err == nil {
			err = cerr
		}
		w.f, w.cur = nil, nil
		if err != nil {
			return err
		}
	}
	if err := w.retain(); err != nil {
		return err
	}
	var name string
	var f *os.File
	for seq := 0; ; seq++ {
		name = segName(at, seq)
		var err error
		f, err = os.OpenFile(filepath.Join(w.o.Dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, safefile.Mode)
		if errors.Is(err, os.ErrExist) && seq < 100 {
			continue
		}
		if err != nil {
			return err
		}
		break
	}
	w.f = f
	w.idx.Segments = append(w.idx.Segments, segEntry{File: name})
	w.cur = &w.idx.Segments[len(w.idx.Segments)-1]
	w.status.Segments = len(w.idx.Segments)
	// A new segment reads alone: its head, and the setup current then.
	w.setup = nil
	return w.writeMember([]line{{Segment: &segmentHead{Format: FormatVersion, Pair: w.o.Pair, Started: at}}})
}

// member writes lines as one gzip member of the current segment covering
// [first, last], then the index.
func (w *Writer) member(lines []line, first, last time.Time) error {
	if err := w.writeMember(lines); err != nil {
		return err
	}
	if w.cur.First.IsZero() || first.Before(w.cur.First) {
		w.cur.First = first
	}
	if last.After(w.cur.Last) {
		w.cur.Last = last
	}
	return w.writeIndex()
}

// writeMember compresses lines into one gzip member and appends it in one
// write: a kill mid-write leaves a member the reader drops, never a line
// cut in two that it would take.
func (w *Writer) writeMember(lines []line) error {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	enc := json.NewEncoder(zw)
	for _, l := range lines {
		if err := enc.Encode(l); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	n, err := w.f.Write(buf.Bytes())
	w.cur.Bytes += int64(n)
	w.status.Bytes += int64(n)
	w.status.DiskBytes += int64(n)
	return err
}

// writeIndex rewrites index.json (renamed into place).
func (w *Writer) writeIndex() error {
	b, err := json.Marshal(w.idx)
	if err != nil {
		return err
	}
	return safefile.WriteFile(filepath.Join(w.o.Dir, indexName), append(b, '\n'))
}

// refreshDisk counts the segments and their bytes into the status.
func (w *Writer) refreshDisk() {
	w.status.Segments, w.status.DiskBytes = len(w.idx.Segments), 0
	for _, s := range w.idx.Segments {
		w.status.DiskBytes += s.Bytes
	}
}
