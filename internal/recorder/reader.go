package recorder

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/lagscope/lagscope/internal/sample"
)

// listSegments is the segments of dir, oldest first: index.json's entries
// for the files it names, and every other segment file with its start
// from its name and its last time unknown (zero). Sizes are the files'.
func listSegments(dir string) ([]segEntry, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("recording directory: %w", err)
	}
	known := map[string]segEntry{}
	if b, err := os.ReadFile(filepath.Join(dir, indexName)); err == nil {
		var idx index
		if err := json.Unmarshal(b, &idx); err == nil && idx.Format <= FormatVersion {
			for _, s := range idx.Segments {
				known[s.File] = s
			}
		}
		// An index that does not parse is ignored: the files say enough.
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("recording index: %w", err)
	}
	var out []segEntry
	for _, e := range ents {
		start, ok := segStart(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		s, ok := known[e.Name()]
		if !ok {
			s = segEntry{File: e.Name(), First: start}
		}
		if fi, err := e.Info(); err == nil {
			s.Bytes = fi.Size()
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].File < out[j].File })
	return out, nil
}

// segment is what one segment holds, in order.
type segment struct {
	steps  []*sample.Recording
	setups []setupLine
	downs  []downLine
	// torn says the segment ends with a member that does not read whole
	// (a recorder killed mid-write): what came before it is kept.
	torn bool
}

// readSegment reads a segment's whole members, stopping at the first that
// does not read whole.
func readSegment(path string) (*segment, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	seg := &segment{}
	br := bufio.NewReader(f)
	zr, err := gzip.NewReader(br)
	if errors.Is(err, io.EOF) {
		return seg, nil
	}
	if err != nil {
		seg.torn = true
		return seg, nil
	}
	for {
		zr.Multistream(false)
		body, err := io.ReadAll(zr)
		if err != nil {
			seg.torn = true
			return seg, nil
		}
		if err := seg.add(body); err != nil {
			return nil, fmt.Errorf("segment %s: %w", quoteName(filepath.Base(path)), err)
		}
		if err := zr.Reset(br); errors.Is(err, io.EOF) {
			return seg, nil
		} else if err != nil {
			seg.torn = true
			return seg, nil
		}
	}
}

// add takes the lines of one member.
func (s *segment) add(body []byte) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	for {
		var l line
		if err := dec.Decode(&l); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return err
		}
		switch {
		case l.Segment != nil:
			if l.Segment.Format > FormatVersion {
				return fmt.Errorf("segment format %d is newer than this lagscope's (%d): upgrade lagscope", l.Segment.Format, FormatVersion)
			}
		case l.Setup != nil:
			s.setups = append(s.setups, *l.Setup)
		case l.Step != nil:
			if l.Step.Version > sample.RecordingVersion {
				return fmt.Errorf("a step of recording version %d, newer than this lagscope's (%d): upgrade lagscope", l.Step.Version, sample.RecordingVersion)
			}
			s.steps = append(s.steps, l.Step)
		case l.Down != nil:
			s.downs = append(s.downs, *l.Down)
		}
	}
}

// Span is the recorded range of the recording in dir: the first step's
// start and the last step's end (a recording holding no step yet is
// ErrNoRecording).
func Span(dir string) (first, last time.Time, err error) {
	segs, err := listSegments(dir)
	if err != nil {
		return first, last, err
	}
	for i := range segs {
		seg, err := readSegment(filepath.Join(dir, segs[i].File))
		if err != nil {
			return first, last, err
		}
		if len(seg.steps) > 0 {
			first = seg.steps[0].Start
			break
		}
	}
	for i := len(segs) - 1; i >= 0; i-- {
		seg, err := readSegment(filepath.Join(dir, segs[i].File))
		if err != nil {
			return first, last, err
		}
		if len(seg.steps) > 0 {
			last = seg.steps[len(seg.steps)-1].End
			break
		}
	}
	if first.IsZero() {
		return first, last, fmt.Errorf("%s: %w (no step written yet)", dir, ErrNoRecording)
	}
	return first, last, nil
}

// Read cuts [from, to) out of the recording in dir: the steps that overlap
// it, joined (sample.Merge) and trimmed to it, with the setup current at
// the window's start (the last written at or before it; else the first
// after). A stretch inside the window between two steps (more than
// MaxHole apart) is a gap of every side: with the causes a failed step
// wrote, or "not recorded". A window holding no step is an error that
// names the recorded range.
func Read(dir string, from, to time.Time) (*sample.Recording, error) {
	if !to.After(from) {
		return nil, fmt.Errorf("the window's end (%s) is not after its start (%s)", to.Format(time.RFC3339), from.Format(time.RFC3339))
	}
	segs, err := listSegments(dir)
	if err != nil {
		return nil, err
	}
	if len(segs) == 0 {
		return nil, fmt.Errorf("%s: %w: no segment (files seg-*.jsonl.gz written by 'lagscope record' or 'lagscope exporter --record')", dir, ErrNoRecording)
	}
	var steps []*sample.Recording
	var setups []setupLine
	var downs []downLine
	for i, s := range segs {
		if !overlaps(segs, i, from, to) {
			continue
		}
		seg, err := readSegment(filepath.Join(dir, s.File))
		if err != nil {
			return nil, err
		}
		setups = append(setups, seg.setups...)
		downs = append(downs, seg.downs...)
		for _, st := range seg.steps {
			if st.End.After(from) && st.Start.Before(to) {
				steps = append(steps, st)
			}
		}
	}
	if len(steps) == 0 {
		return nil, noData(dir, from, to, downs)
	}
	return assemble(steps, downs, setups, from, to), nil
}

// assemble is the window [from, to) of steps (those that overlap it, in
// order, at least one): joined, cut, its holes marked as gaps, with the
// setup current at its start.
func assemble(steps []*sample.Recording, downs []downLine, setups []setupLine, from, to time.Time) *sample.Recording {
	rec := cut(sample.Merge(steps...), from, to)
	rec.Gaps = append(rec.Gaps, holes(steps, downs, rec)...)
	sort.SliceStable(rec.Gaps, func(i, j int) bool { return rec.Gaps[i].From.Before(rec.Gaps[j].From) })
	if su, ok := setupAt(setups, rec.Start); ok {
		rec.Setup, rec.SetupError = su.Setup, su.Error
	} else {
		rec.SetupError = "the recording holds no setup read for this window"
	}
	return rec
}

// Windows cuts [from, to) of the recording in dir into consecutive
// windows of width and calls fn with each, in order, reading each segment
// once: rec is nil for a window with no step (down says why when a failed
// step said, else ""). It stops at fn's first error.
func Windows(dir string, from, to time.Time, width time.Duration, fn func(wfrom, wto time.Time, rec *sample.Recording, down string) error) error {
	if width <= 0 || !to.After(from) {
		return fmt.Errorf("windows of %s over %s to %s: nothing to cut", width, stamp(from), stamp(to))
	}
	segs, err := listSegments(dir)
	if err != nil {
		return err
	}
	var steps []*sample.Recording
	var downs []downLine
	var setups []setupLine
	next := 0
	for wf := from; wf.Before(to); wf = wf.Add(width) {
		wt := minTime(wf.Add(width), to)
		// Load the segments that may hold samples before wt.
		for next < len(segs) {
			if start, ok := segStart(segs[next].File); ok && !start.Before(wt) {
				break
			}
			if overlaps(segs, next, from, to) {
				seg, err := readSegment(filepath.Join(dir, segs[next].File))
				if err != nil {
					return err
				}
				steps, downs, setups = append(steps, seg.steps...), append(downs, seg.downs...), append(setups, seg.setups...)
			}
			next++
		}
		// Drop what ended before this window (keeping the setup current).
		i := 0
		for i < len(steps) && !steps[i].End.After(wf) {
			i++
		}
		steps = steps[i:]
		if len(setups) > 1 {
			j := 0
			for j+1 < len(setups) && !setups[j+1].At.After(wf) {
				j++
			}
			setups = setups[j:]
		}
		var in []*sample.Recording
		for _, st := range steps {
			if st.Start.Before(wt) {
				in = append(in, st)
			}
		}
		var err error
		if len(in) == 0 {
			why := ""
			for _, d := range downs {
				if d.To.After(wf) && d.From.Before(wt) {
					why = downCause(d, "")
				}
			}
			err = fn(wf, wt, nil, why)
		} else {
			err = fn(wf, wt, assemble(in, downs, setups, wf, wt), "")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// overlaps says whether segment i of segs may hold samples of [from, to):
// it covers from its start to its last time, or where that is not known
// (or it is the newest, whose index entry may lag a member) to the next
// segment's start, or on.
func overlaps(segs []segEntry, i int, from, to time.Time) bool {
	s := segs[i]
	start := s.First
	if t, ok := segStart(s.File); ok && (start.IsZero() || t.Before(start)) {
		start = t
	}
	if !start.Before(to) {
		return false
	}
	if i+1 == len(segs) {
		return true
	}
	end := s.Last
	if next, ok := segStart(segs[i+1].File); ok && (end.IsZero() || next.After(end)) {
		end = next
	}
	return end.IsZero() || end.After(from)
}

// MaxHole is the longest pause between two recorded steps that is not a
// gap: the sampler's own pause between steps (its diagnosis, a session
// reopened) is well under it.
const MaxHole = 3 * time.Second

// noData is the error of a window with no step: the recorded range, and
// why nothing was sampled when a failed step says.
func noData(dir string, from, to time.Time, downs []downLine) error {
	why := ""
	for _, d := range downs {
		if d.To.After(from) && d.From.Before(to) {
			why = ": " + downCause(d, "")
			break
		}
	}
	first, last, err := Span(dir)
	if err != nil {
		return fmt.Errorf("nothing recorded from %s to %s%s", stamp(from), stamp(to), why)
	}
	return fmt.Errorf("nothing recorded from %s to %s%s; the recording in %s covers %s to %s", stamp(from), stamp(to), why, dir, stamp(first), stamp(last))
}

// stamp prints a time for an error: UTC, to the second.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// cut trims rec to [from, to): its ticks, probes and gaps (clipped).
func cut(rec *sample.Recording, from, to time.Time) *sample.Recording {
	in := func(t time.Time) bool { return !t.Before(from) && t.Before(to) }
	out := &sample.Recording{Version: rec.Version, Start: rec.Start, End: rec.End, Nodes: rec.Nodes}
	if out.Start.Before(from) {
		out.Start = from
	}
	if out.End.After(to) {
		out.End = to
	}
	for _, t := range rec.Ticks {
		if in(t.At) {
			out.Ticks = append(out.Ticks, t)
		}
	}
	for _, p := range rec.Probes {
		if in(p.At) {
			out.Probes = append(out.Probes, p)
		}
	}
	for _, g := range rec.Gaps {
		if g.To.After(out.Start) && g.From.Before(out.End) {
			g.From, g.To = maxTime(g.From, out.Start), minTime(g.To, out.End)
			out.Gaps = append(out.Gaps, g)
		}
	}
	return out
}

// holes are the gaps between consecutive steps inside rec's window, one
// per side of rec's nodes, with the cause a failed step gave.
func holes(steps []*sample.Recording, downs []downLine, rec *sample.Recording) []sample.Gap {
	var out []sample.Gap
	for i := 1; i < len(steps); i++ {
		from, to := maxTime(steps[i-1].End, rec.Start), minTime(steps[i].Start, rec.End)
		if to.Sub(from) <= MaxHole {
			continue
		}
		for _, n := range rec.Nodes {
			cause := "not recorded (the recorder was not running, or not sampling)"
			for _, d := range downs {
				if d.To.After(from) && d.From.Before(to) {
					cause = downCause(d, string(n.ID))
					break
				}
			}
			out = append(out, sample.Gap{Side: string(n.ID), From: from, To: to, Cause: cause})
		}
	}
	return out
}

// downCause is why a failed step sampled nothing, for side ("" = any).
func downCause(d downLine, side string) string {
	if why, ok := d.Sides[side]; ok {
		return "not sampled: " + why
	}
	if side == "" {
		var parts []string
		for _, s := range sortedKeys(d.Sides) {
			parts = append(parts, s+": "+d.Sides[s])
		}
		if len(parts) > 0 {
			return "not sampled: " + strings.Join(parts, "; ")
		}
	}
	if d.Error != "" && side != "" {
		return "not sampled: the step failed: " + d.Error
	}
	if d.Error != "" {
		return "not sampled: " + d.Error
	}
	return "not sampled"
}

// setupAt is the setup current at t: the last written at or before t, else
// the first written after.
func setupAt(setups []setupLine, t time.Time) (setupLine, bool) {
	var best setupLine
	found := false
	for _, s := range setups {
		if !s.At.After(t) || !found {
			best, found = s, true
		}
		if s.At.After(t) {
			break
		}
	}
	return best, found
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// Resolve is the recording directory dir names: dir itself when it holds
// segments, else its one subdirectory that does (the exporter records each
// pair in root/pair). Several such subdirectories are an error naming
// them.
func Resolve(dir string) (string, error) {
	if segs, err := listSegments(dir); err != nil {
		return "", err
	} else if len(segs) > 0 {
		return dir, nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var found []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if segs, err := listSegments(filepath.Join(dir, e.Name())); err == nil && len(segs) > 0 {
			found = append(found, e.Name())
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("%s: %w: no segment here or in a pair's directory under it (written by 'lagscope record' or 'lagscope exporter --record')", dir, ErrNoRecording)
	case 1:
		return filepath.Join(dir, found[0]), nil
	}
	var q []string
	for _, f := range found {
		q = append(q, quoteName(f))
	}
	return "", fmt.Errorf("%s holds the recordings of %d pairs (%s): give the pair's directory, %s", dir, len(found), strings.Join(q, ", "), filepath.Join(dir, found[0]))
}
