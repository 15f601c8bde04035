package recorder

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/lagscope/lagscope/internal/sample"
)

// FormatVersion is the version of the segment format (the lines below and
// index.json), apart from the recordings' own version: each step line
// holds a sample.Recording in its own JSON (sample.RecordingVersion), read
// by sample's reader whatever version wrote it.
const FormatVersion = 1

// Defaults of Options.
const (
	// DefaultSegmentEvery is how long a segment covers before the next
	// starts: retention removes whole segments, so this is its grain.
	DefaultSegmentEvery = 10 * time.Minute
	// DefaultRetainAge keeps two days: last night's incident can still be
	// read the morning after next.
	DefaultRetainAge = 48 * time.Hour
	// DefaultRetainSize bounds a path's recording. Measured on a lab pair
	// under load (docs/recorder.md): 2.8 MB a path-hour at 5-s steps, 66
	// MB a day; 512 MiB holds a week of it, so that the age limit is the
	// one that binds unless a path's samples are far larger.
	DefaultRetainSize int64 = 512 << 20
)

// line is one JSON line of a segment: exactly one field set.
type line struct {
	// Segment opens every segment.
	Segment *segmentHead `json:"segment,omitempty"`
	// Setup is the pair's setup as read at At: written at the start of
	// each segment and whenever it changes.
	Setup *setupLine `json:"setup,omitempty"`
	// Step is one step's samples, without the setup (kept apart).
	Step *sample.Recording `json:"step,omitempty"`
	// Down is a stretch the sampler could not sample: a step that failed
	// (a server that went away), with why, per side.
	Down *downLine `json:"down,omitempty"`
}

// segmentHead is a segment's first line.
type segmentHead struct {
	Format  int       `json:"format"`
	Pair    string    `json:"pair"`
	Started time.Time `json:"started"`
}

// setupLine is the setup read current from At on.
type setupLine struct {
	At    time.Time       `json:"at"`
	Setup json.RawMessage `json:"setup,omitempty"`
	Error string          `json:"error,omitempty"`
}

// downLine is a stretch with no samples and why: Sides maps a side that
// did not answer to its error; Error is the step's error.
type downLine struct {
	From  time.Time         `json:"from"`
	To    time.Time         `json:"to"`
	Sides map[string]string `json:"sides,omitempty"`
	Error string            `json:"error,omitempty"`
}

// The files of a path's directory.
const (
	indexName   = "index.json"
	segPrefix   = "seg-"
	segSuffix   = ".jsonl.gz"
	segTimeForm = "20060102T150405Z"
)

// index is index.json: the segments, oldest first.
type index struct {
	Format   int        `json:"format"`
	Pair     string     `json:"pair"`
	Segments []segEntry `json:"segments"`
}

// segEntry is one segment: its file (a base name), its first and last
// recorded times (zero while it holds nothing) and its size in bytes.
type segEntry struct {
	File  string    `json:"file"`
	First time.Time `json:"first"`
	Last  time.Time `json:"last"`
	Bytes int64     `json:"bytes"`
}

// segName is the name of a segment started at t (seq > 0 when a segment of
// the same second exists).
func segName(t time.Time, seq int) string {
	s := segPrefix + t.UTC().Format(segTimeForm)
	if seq > 0 {
		s += fmt.Sprintf("-%d", seq)
	}
	return s + segSuffix
}

// segNameRE is what segName writes.
var segNameRE = regexp.MustCompile(`^seg-(\d{8}T\d{6}Z)(-\d+)?\.jsonl\.gz$`)

// segStart is the start time a segment's name holds.
func segStart(name string) (time.Time, bool) {
	m := segNameRE.FindStringSubmatch(name)
	if m == nil {
		return time.Time{}, false
	}
	t, err := time.Parse(segTimeForm, m[1])
	return t, err == nil
}

// validPair is what a pair's name may be to name a directory: the
// exporter's pair names (1-63 letters, digits, '_', '.', ':' or '-'), not
// starting with a dot.
var validPair = regexp.MustCompile(`^[A-Za-z0-9_:-][A-Za-z0-9_.:-]{0,62}$`)

// PathDir is the directory of pair's recording under root: root/pair.
func PathDir(root, pair string) (string, error) {
	if !validPair.MatchString(pair) {
		return "", fmt.Errorf("pair name %q cannot name a recording's directory: use 1-63 letters, digits, '_', '.', ':' or '-', not starting with '.'", pair)
	}
	return filepath.Join(root, pair), nil
}

// ErrNoRecording says a directory holds no recording.
var ErrNoRecording = errors.New("no recording")

// quoteName shows a file name from a directory safely in an error.
func quoteName(s string) string {
	return fmt.Sprintf("%q", strings.ToValidUTF8(s, "\uFFFD"))
}
