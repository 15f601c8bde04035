package recorder

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/sample"
)

// loadRecording is a real lab recording of the regression set.
func loadRecording(t *testing.T, name string) *sample.Recording {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "classify", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := sample.ReadRecording(f)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// steps cuts rec into steps of every ticks ticks each, as the monitor's
// steps are, shifted by shift.
func steps(rec *sample.Recording, every int, shift time.Duration) []*sample.Recording {
	var out []*sample.Recording
	for i := 0; i < len(rec.Ticks); i += every {
		j := min(i+every, len(rec.Ticks))
		s := &sample.Recording{Version: rec.Version, Nodes: rec.Nodes,
			Start: rec.Ticks[i].At.Add(shift), End: rec.End.Add(shift)}
		if i == 0 {
			s.Start = rec.Start.Add(shift)
		}
		if j < len(rec.Ticks) {
			s.End = rec.Ticks[j].At.Add(shift)
		}
		for _, tk := range rec.Ticks[i:j] {
			tk = tk.Clone()
			tk.At = tk.At.Add(shift)
			s.Ticks = append(s.Ticks, tk)
		}
		for _, p := range rec.Probes {
			if at := p.At.Add(shift); !at.Before(s.Start) && at.Before(s.End) {
				p.At = at
				s.Probes = append(s.Probes, p)
			}
		}
		out = append(out, s)
	}
	return out
}

func write(t *testing.T, o Options, ss []*sample.Recording, setup json.RawMessage) {
	t.Helper()
	if o.Now == nil {
		// Retention counts age from the samples' time, not today's.
		end := ss[len(ss)-1].End
		o.Now = func() time.Time { return end }
	}
	w, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		if err := w.Step(s, setup, ""); err != nil {
			t.Fatal(err)
		}
	}
	if st := w.Status(); st.Steps != len(ss) || st.Segments == 0 || st.Bytes == 0 {
		t.Fatalf("status %+v after %d steps", st, len(ss))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestAWindowReadsBackAcrossSegmentsAsItWasSampled(t *testing.T) {
	rec := loadRecording(t, "apply-bound-pg16-diag.json")
	dir := filepath.Join(t.TempDir(), "rec")
	ss := steps(rec, 2, 0)
	write(t, Options{Dir: dir, Pair: "p", SegmentEvery: 3 * time.Second}, ss, rec.Setup)
	segs, err := listSegments(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) < 2 {
		t.Fatalf("%d segments: the test needs the window to cross a segment boundary", len(segs))
	}
	got, err := Read(dir, rec.Start.Add(-time.Minute), rec.End.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Ticks) != len(rec.Ticks) || len(got.Probes) != len(rec.Probes) || len(got.Gaps) != 0 {
		t.Fatalf("read back %d ticks, %d probes, %d gaps; recorded %d ticks, %d probes, none", len(got.Ticks), len(got.Probes), len(got.Gaps), len(rec.Ticks), len(rec.Probes))
	}
	if string(got.Setup) != string(rec.Setup) {
		t.Fatalf("the setup did not read back")
	}
	a, _ := json.Marshal(rec.Ticks)
	b, _ := json.Marshal(got.Ticks)
	if string(a) != string(b) {
		t.Fatal("the ticks read back differ from those written")
	}
	if err := got.Validate(); err != nil {
		t.Fatalf("the window read back does not validate: %v", err)
	}
	// A window inside: only its ticks, its bounds.
	from, to := rec.Ticks[3].At, rec.Ticks[7].At
	part, err := Read(dir, from, to)
	if err != nil {
		t.Fatal(err)
	}
	if len(part.Ticks) != 4 || !part.Start.Equal(from) || !part.End.Equal(to) {
		t.Fatalf("window [%s, %s): %d ticks from %s to %s, want 4 ticks over the window", from, to, len(part.Ticks), part.Start, part.End)
	}
}

func TestFilesAreTheUsersAlone(t *testing.T) {
	rec := loadRecording(t, "apply-bound-pg16-diag.json")
	dir := filepath.Join(t.TempDir(), "rec")
	write(t, Options{Dir: dir}, steps(rec, 5, 0), nil)
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v, want 0700", fi.Mode().Perm())
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		fi, _ := e.Info()
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", e.Name(), fi.Mode().Perm())
		}
	}
}

func TestAStretchWithoutStepsIsAGapWithItsCause(t *testing.T) {
	rec := loadRecording(t, "apply-bound-pg16-diag.json")
	dir := filepath.Join(t.TempDir(), "rec")
	ss := steps(rec, 5, 0)
	late := steps(rec, 5, time.Minute)
	w, err := Open(Options{Dir: dir, RetainAge: -1})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		if err := w.Step(s, nil, ""); err != nil {
			t.Fatal(err)
		}
	}
	end := ss[len(ss)-1].End
	if err := w.Down(end, end.Add(40*time.Second), map[string]string{sample.Subscriber: "connection refused"}, "subscriber: connection refused"); err != nil {
		t.Fatal(err)
	}
	for _, s := range late {
		if err := w.Step(s, nil, ""); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	got, err := Read(dir, rec.Start, late[len(late)-1].End)
	if err != nil {
		t.Fatal(err)
	}
	causes := map[string]string{}
	for _, g := range got.Gaps {
		causes[g.Side] = g.Cause
		if !g.From.Equal(end) || !g.To.Equal(late[0].Start) {
			t.Errorf("gap of %s from %s to %s, want %s to %s", g.Side, g.From, g.To, end, late[0].Start)
		}
	}
	if !strings.Contains(causes[sample.Subscriber], "connection refused") || !strings.Contains(causes[sample.Publisher], "subscriber: connection refused") {
		t.Fatalf("gaps' causes %q: want the failed step's", causes)
	}
	// A window inside the stretch is no data, with the recorded range.
	_, err = Read(dir, end.Add(10*time.Second), end.Add(20*time.Second))
	if err == nil || !strings.Contains(err.Error(), "nothing recorded") || !strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), "covers") {
		t.Fatalf("a window with no step: %v, want 'nothing recorded ... covers ...' with the cause", err)
	}
}

func TestATornLastMemberLosesOnlyItself(t *testing.T) {
	rec := loadRecording(t, "apply-bound-pg16-diag.json")
	dir := filepath.Join(t.TempDir(), "rec")
	ss := steps(rec, 2, 0)
	write(t, Options{Dir: dir}, ss, nil)
	segs, _ := listSegments(dir)
	path := filepath.Join(dir, segs[len(segs)-1].File)
	fi, _ := os.Stat(path)
	if err := os.Truncate(path, fi.Size()-7); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, indexName)) // and the index lost too
	got, err := Read(dir, rec.Start, rec.End.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, s := range ss[:len(ss)-1] {
		want += len(s.Ticks)
	}
	if len(got.Ticks) != want {
		t.Fatalf("%d ticks read back, want the %d of every step but the torn last", len(got.Ticks), want)
	}
}

func TestRetentionDropsTheOldestByAgeAndBySize(t *testing.T) {
	rec := loadRecording(t, "apply-bound-pg16-diag.json")
	dir := filepath.Join(t.TempDir(), "rec")
	var all []*sample.Recording
	for h := range 6 {
		all = append(all, steps(rec, 10, time.Duration(h)*time.Hour)...)
	}
	now := all[len(all)-1].End
	write(t, Options{Dir: dir, SegmentEvery: time.Minute, RetainAge: 150 * time.Minute, RetainSize: -1, Now: func() time.Time { return now }}, all, nil)
	first, _, err := Span(dir)
	if err != nil {
		t.Fatal(err)
	}
	if now.Sub(first) > 3*time.Hour+time.Minute {
		t.Fatalf("after retention by 150m the recording starts %s before its end", now.Sub(first))
	}
	segs, _ := listSegments(dir)
	one := segs[len(segs)-1].Bytes
	dir2 := filepath.Join(t.TempDir(), "rec")
	write(t, Options{Dir: dir2, SegmentEvery: time.Minute, RetainAge: -1, RetainSize: 2 * one, Now: func() time.Time { return now }}, all, nil)
	segs, _ = listSegments(dir2)
	var total int64
	for _, s := range segs {
		total += s.Bytes
	}
	if len(segs) > 3 || total > 3*one+one/2 {
		t.Fatalf("after retention by %d bytes: %d segments of %d bytes", 2*one, len(segs), total)
	}
}

func TestASetupChangeIsTheOneCurrentThen(t *testing.T) {
	rec := loadRecording(t, "apply-bound-pg16-diag.json")
	dir := filepath.Join(t.TempDir(), "rec")
	ss := steps(rec, 2, 0)
	w, _ := Open(Options{Dir: dir, RetainAge: -1})
	for i, s := range ss {
		setup := json.RawMessage(`{"a":1}`)
		if i >= 2 {
			setup = json.RawMessage(`{"a":2}`)
		}
		if err := w.Step(s, setup, ""); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	for _, c := range []struct {
		at   time.Time
		want string
	}{{ss[0].Start, `{"a":1}`}, {ss[3].Start, `{"a":2}`}} {
		got, err := Read(dir, c.at, c.at.Add(2*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if string(got.Setup) != c.want {
			t.Errorf("at %s: setup %s, want %s", c.at, got.Setup, c.want)
		}
	}
}

func TestAStoppedWriterSaysWhyAndWritesNothingMore(t *testing.T) {
	rec := loadRecording(t, "apply-bound-pg16-diag.json")
	dir := filepath.Join(t.TempDir(), "rec")
	ss := steps(rec, 5, 0)
	w, _ := Open(Options{Dir: dir, RetainAge: -1})
	if err := w.Step(ss[0], nil, ""); err != nil {
		t.Fatal(err)
	}
	w.f.Close() // the next write fails
	err := w.Step(ss[1], nil, "")
	if err == nil || w.Stopped() == nil || !errors.Is(w.Step(ss[1], nil, ""), os.ErrClosed) {
		t.Fatalf("a failed write: %v, stopped %v; want it kept as why the recording stopped", err, w.Stopped())
	}
}

func TestPairNamesThatCannotNameADirectoryAreRefused(t *testing.T) {
	for _, n := range []string{"", ".", "..", ".hidden", "a/b", strings.Repeat("x", 64)} {
		if _, err := PathDir("/r", n); err == nil {
			t.Errorf("pair %q: accepted", n)
		}
	}
	if d, err := PathDir("/r", "orders-eu:1"); err != nil || d != "/r/orders-eu:1" {
		t.Errorf("orders-eu:1: %s %v", d, err)
	}
}

func TestResolveFindsTheOnePairsDirectory(t *testing.T) {
	rec := loadRecording(t, "apply-bound-pg16-diag.json")
	root := t.TempDir()
	write(t, Options{Dir: filepath.Join(root, "a")}, steps(rec, 5, 0), nil)
	if d, err := Resolve(root); err != nil || d != filepath.Join(root, "a") {
		t.Fatalf("Resolve: %s %v", d, err)
	}
	write(t, Options{Dir: filepath.Join(root, "b")}, steps(rec, 5, 0), nil)
	if _, err := Resolve(root); err == nil || !strings.Contains(err.Error(), "2 pairs") {
		t.Fatalf("two pairs: %v", err)
	}
	if _, err := Resolve(t.TempDir()); !errors.Is(err, ErrNoRecording) {
		t.Fatalf("an empty directory: %v", err)
	}
}

func TestSizesReadAsTheyPrint(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Size
	}{{"512MiB", 512 << 20}, {"2GB", 2e9}, {"300 MB", 300e6}, {"1024", 1024}, {"unlimited", -1}, {"1.5GiB", 3 << 29}} {
		got, err := ParseSize(c.in)
		if err != nil || got != c.want {
			t.Errorf("%q: %d %v, want %d", c.in, got, err, c.want)
		}
		if back, err := ParseSize(got.String()); err != nil || back != got {
			t.Errorf("%q prints %q, which reads %d %v", c.in, got.String(), back, err)
		}
	}
	for _, bad := range []string{"", "0", "-1MB", "lots", "5XB"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

func TestTimesOfDayAreTheLastBeforeNow(t *testing.T) {
	now := time.Date(2026, 12, 5, 9, 30, 0, 0, time.UTC)
	for _, c := range []struct {
		in   string
		want time.Time
	}{
		{"03:00", time.Date(2026, 12, 5, 3, 0, 0, 0, time.UTC)},
		{"23:10:05", time.Date(2026, 12, 4, 23, 10, 5, 0, time.UTC)},
		{"2026-12-01 04:05", time.Date(2026, 12, 1, 4, 5, 0, 0, time.UTC)},
		{"2026-12-01T04:05:00+01:00", time.Date(2026, 12, 1, 3, 5, 0, 0, time.UTC)},
	} {
		got, err := ParseWhen(c.in, now, time.UTC)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("%q: %s %v, want %s", c.in, got, err, c.want)
		}
	}
	if _, err := ParseWhen("yesterday", now, time.UTC); err == nil {
		t.Error("'yesterday' accepted")
	}
	from, to, err := ParseBetween("02:50,03:20", now, time.UTC)
	if err != nil || to.Sub(from) != 30*time.Minute {
		t.Errorf("02:50,03:20: %s to %s %v", from, to, err)
	}
	if _, _, err := ParseBetween("03:20", now, time.UTC); err == nil {
		t.Error("a single time accepted as --between")
	}
}

func TestWindowsCutTheRecordingAsReadDoes(t *testing.T) {
	rec := loadRecording(t, "apply-bound-pg16-diag.json")
	dir := filepath.Join(t.TempDir(), "rec")
	ss := append(steps(rec, 2, 0), steps(rec, 2, time.Minute)...)
	write(t, Options{Dir: dir, SegmentEvery: 3 * time.Second, RetainAge: -1}, ss, rec.Setup)
	from, to := rec.Start, rec.End.Add(time.Minute)
	var got, empty int
	err := Windows(dir, from, to, 5*time.Second, func(wf, wt time.Time, w *sample.Recording, _ string) error {
		if w == nil {
			empty++
			return nil
		}
		want, err := Read(dir, wf, wt)
		if err != nil {
			return err
		}
		a, _ := json.Marshal(w)
		b, _ := json.Marshal(want)
		if string(a) != string(b) {
			t.Errorf("window %s-%s differs from Read's", wf, wt)
		}
		got += len(w.Ticks)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got != 2*len(rec.Ticks) || empty < 8 {
		t.Fatalf("windows held %d ticks (want %d) and %d were empty (the minute between: want at least 8)", got, 2*len(rec.Ticks), empty)
	}
}
