package model

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/sample"
)

// heldInput is a standby whose startup process was held (class held) in
// heldShare of its probes and otherwise on a CPU (busy) or waiting for WAL
// (the rest), replaying replayed bytes/s over the window while the
// primary writes gen, with unreplayed bytes behind at the end.
func heldInput(class string, heldShare, busy float64, replayed, gen float64, unreplayed int64) PhysicalInput {
	p := measure.Physical{HasPrimary: true, HasStandby: true, WindowS: 10, Generated: gen, Sent: gen, Received: gen, Replayed: replayed,
		Unsent: 0, InFlight: 0, Unreplayed: unreplayed, UnreplayedStart: unreplayed,
		Replay: map[string]float64{class: heldShare, measure.ReplayOnCPU: busy}}
	if w := 1 - heldShare - busy; w > 0 {
		p.Replay[measure.ReplayWaitingForWAL] = w
	}
	p.Last = &sample.StandbyRead{Settings: sample.StandbySettings{MaxStreamingDelayMS: 30000}}
	return PhysicalInput{Path: p}
}

func prediction(t *testing.T, ps []Prediction, change RemedyID) Prediction {
	t.Helper()
	for _, p := range ps {
		if p.Change == string(change) {
			return p
		}
	}
	t.Fatalf("no %s among %v", change, ps)
	return Prediction{}
}

// A pause that began 4 s into a 10 s window during which replay worked all
// its unheld time at 50 MB/s: replayed 20 MB/s over the window. 400 MB
// behind, the primary writing 10 MB/s: 400 / (50 - 10) = 10 s.
func TestAPauseSeenAfterReplayRanPredictsTheCatchUpFromReplaysUnheldRate(t *testing.T) {
	in := heldInput(measure.ReplayPausedWait, 0.6, 0.4, 20e6, 10e6, 400e6)
	pr := prediction(t, PlanPhysical(in, Verdict{Name: ReplayPaused}), KeyResumeReplay)
	if pr.NotPredicted != "" || pr.AtLeast || math.Abs(pr.Drain-50e6) > 1 || math.Abs(pr.CatchUpS-10) > 1e-9 || pr.LimitedBy != StageReplay {
		t.Fatalf("%+v, want 50 MB/s and 10 s", pr)
	}
	if !strings.Contains(pr.Model, "400 MB behind / (replay's rate when not held - the WAL rate, 10.0 MB/s)") || !strings.Contains(pr.String(), "caught up in about 10 s") {
		t.Errorf("line %q", pr.String())
	}
}

// Replay that waited for WAL part of its unheld time kept up: its rate
// then is a lower bound, and the catch-up an upper one.
func TestReplayThatKeptUpBeforeTheHoldGivesABound(t *testing.T) {
	in := heldInput(measure.ReplayDelayWait, 0.5, 0.1, 15e6, 10e6, 400e6)
	pr := prediction(t, PlanPhysical(in, Verdict{Name: ReplayDelayed}), KeyRemoveApplyDelay)
	// 15 MB/s over the 50% not held: at least 30 MB/s, at most 400 / 20 = 20 s.
	if !pr.AtLeast || math.Abs(pr.Drain-30e6) > 1 || math.Abs(pr.CatchUpS-20) > 1e-9 {
		t.Fatalf("%+v, want at least 30 MB/s, at most 20 s", pr)
	}
	if s := pr.String(); !strings.Contains(s, "at most 20 s") || !strings.Contains(s, "stays about D x 10.0 MB/s behind") {
		t.Errorf("line %q", s)
	}
	// A bound no faster than the primary writes says nothing.
	in = heldInput(measure.ReplayDelayWait, 0.5, 0.1, 4e6, 10e6, 400e6)
	if pr := prediction(t, PlanPhysical(in, Verdict{Name: ReplayDelayed}), KeyRemoveApplyDelay); pr.Drain != 0 || !strings.Contains(pr.NotPredicted, "that bound says nothing of a catch-up") {
		t.Errorf("%+v", pr)
	}
}

// Held the whole window, replay's capacity is not measured: no figure,
// and never one made up from its CPU share while held.
func TestReplayHeldTheWholeWindowGetsNoFigure(t *testing.T) {
	for _, c := range []struct {
		class string
		name  VerdictName
		key   RemedyID
	}{{measure.ReplayPausedWait, ReplayPaused, KeyResumeReplay}, {measure.ReplayDelayWait, ReplayDelayed, KeyRemoveApplyDelay}, {measure.ReplayConflictSnapshot, ReplayConflict, KeyCancelConflictHolder}} {
		in := heldInput(c.class, 1, 0, 0, 10e6, 400e6)
		pr := prediction(t, PlanPhysical(in, Verdict{Name: c.name}), c.key)
		if pr.Drain != 0 || pr.CatchUpS != 0 || !strings.Contains(pr.NotPredicted, "replay was held in 100% of the startup process's probes") {
			t.Errorf("%s: %+v", c.name, pr)
		}
	}
}

// A conflict under max_standby_streaming_delay = -1: bounding it gives no
// figure for the hold under way (a reload does not reach a startup process
// waiting on a conflict: the lab's replay stayed held 72 s after it), and
// says that the query's end does; the query gone has its figure.
func TestABoundedStandbyDelayDoesNotEndTheHoldUnderWay(t *testing.T) {
	in := heldInput(measure.ReplayConflictSnapshot, 0.6, 0.4, 20e6, 10e6, 400e6)
	in.Path.Last.Settings.MaxStreamingDelayMS = -1
	in.Path.HeldS = 12
	ps := PlanPhysical(in, Verdict{Name: ReplayConflict})
	gone := prediction(t, ps, KeyCancelConflictHolder)
	bounded := prediction(t, ps, KeyBoundStandbyDelay)
	if math.Abs(gone.CatchUpS-10) > 1e-9 {
		t.Fatalf("gone %g s: want 10", gone.CatchUpS)
	}
	if bounded.Drain != 0 || bounded.CatchUpS != 0 || !strings.Contains(bounded.NotPredicted, "a reload does not end the wait under way") || !strings.Contains(bounded.NotPredicted, "cancel-conflict-holder") {
		t.Errorf("bounded %+v: want no figure, the reason and the remedy that ends it", bounded)
	}
	// A bounded delay already: nothing to bound.
	in.Path.Last.Settings.MaxStreamingDelayMS = 30000
	for _, p := range PlanPhysical(in, Verdict{Name: ReplayConflict}) {
		if p.Change == string(KeyBoundStandbyDelay) {
			t.Errorf("offered with a bounded delay: %+v", p)
		}
	}
}

// link=2x on a physical path: twice what the standby received, capped by
// the startup process's capacity (today's replay over its work).
func TestAFasterPhysicalLinkIsCappedByReplay(t *testing.T) {
	in := heldInput(measure.ReplayWaitingForWAL, 0.5, 0.5, 8e6, 8e6, 100e6)
	in.Path.Unsent = 100e6
	st := []Stage{{Name: StageWalsender, Utilisation: 0.1, Busy: 0.1}, {Name: StageLink, Utilisation: -1},
		{Name: StageReplay, Utilisation: 0.5, Busy: 0.5}}
	in.Path.Generated = 12e6
	pr := prediction(t, PlanPhysical(in, Verdict{Name: Network, Limit: StageLink, Stages: st}), KeyLinkTwice)
	// 2 x 8 = 16 MB/s, but replay saturates at 8 / 0.5 = 16: not below.
	if pr.LimitedBy != StageLink || math.Abs(pr.Drain-16e6) > 1 {
		t.Fatalf("%+v", pr)
	}
	st[2].Utilisation, st[2].Busy = 0.8, 0.8
	pr = prediction(t, PlanPhysical(in, Verdict{Name: Network, Limit: StageLink, Stages: st}), KeyLinkTwice)
	// replay at 8 / 0.8 = 10 MB/s, under the 12 MB/s written: still behind.
	if pr.LimitedBy != StageReplay || math.Abs(pr.Drain-10e6) > 1 || pr.CatchUpS != -1 {
		t.Fatalf("%+v", pr)
	}
}

// The lab's physical recordings: a held standby gets its remedy without
// a figure, the link's gets link=2x (still behind: the lab's link carries
// 1 MB/s of 10-16 written) and wal-compression without one, read-bound
// replay its two remedies without one (how many reads they spare is not
// measured), replay on a CPU none.
func TestPhysicalWhatIfOnTheRecordings(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "classify", "testdata", "physical", "*-diag.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no physical recordings: %v", err)
	}
	want := map[string][]RemedyID{"replay-paused": {KeyResumeReplay}, "standby-decoding": {KeyResumeReplay}, "replay-delayed": {KeyRemoveApplyDelay},
		"replay-conflict": {KeyCancelConflictHolder, KeyBoundStandbyDelay}, "standby-link": {KeyLinkTwice, KeyWALCompression}, "cascade": {KeyLinkTwice, KeyWALCompression},
		"replay-read-io": {KeyReplayPrefetch, KeyStandbyMemory}}
	for _, f := range files {
		label := strings.Split(filepath.Base(f), "-pg")[0]
		t.Run(filepath.Base(f), func(t *testing.T) {
			r, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			rec, err := sample.ReadRecording(r)
			if err != nil {
				t.Fatal(err)
			}
			in := PhysicalInputs(rec)[0]
			ps := PlanPhysical(in, JudgePhysical(in))
			var got []RemedyID
			for _, p := range ps {
				got = append(got, RemedyID(p.Change))
				switch {
				case p.Change == string(KeyLinkTwice):
					if p.CatchUpS != -1 || p.Drain < 1.8e6 || p.Drain > 2.1e6 {
						t.Errorf("link=2x: %s", p)
					}
				case p.NotPredicted == "" || p.Drain != 0:
					t.Errorf("a figure from a window that does not show it: %s", p)
				}
			}
			if strings.Join(keysText(got), ",") != strings.Join(keysText(want[label]), ",") {
				t.Errorf("remedies %v, want %v", got, want[label])
			}
		})
	}
}

func keysText(ks []RemedyID) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}

// wal_compression on a link-bound path, from the primary's pg_stat_wal
// over the window: no full-page images, no gain (1x, and the advice moves
// to what does not help); some, a bound without a figure; not read, no
// figure and how to measure it.
func TestWALCompressionIsPredictedFromTheFullPageImagesInTheWAL(t *testing.T) {
	in := heldInput(measure.ReplayWaitingForWAL, 0, 0.01, 1e6, 12e6, 0)
	in.Path.Received, in.Path.Unsent = 1e6, 100e6
	v := Verdict{Name: Network, Limit: StageLink}
	in.Path.FPI, in.Path.WALBytes = 0, 120e6
	pr := prediction(t, PlanPhysical(in, v), KeyWALCompression)
	if pr.NotPredicted != "" || pr.Speedup != 1 || pr.Drain != 1e6 || pr.CatchUpS != -1 || !strings.Contains(pr.Model, "no full-page images") {
		t.Errorf("no images: %+v", pr)
	}
	texts := physicalTexts(Verdict{Name: Network, Limit: StageLink}, in)
	for _, a := range texts.Helps {
		if a.Key == KeyWALCompression {
			t.Errorf("wal_compression still helps with no full-page images: %q", a.Text)
		}
	}
	if !slices.ContainsFunc(texts.NotHelps, func(a Advice) bool { return a.Key == KeyWALCompression }) {
		t.Errorf("not helps %v: want wal_compression, ruled out", texts.NotHelps)
	}
	// 3000 images in 120 MB: at most 24.6 MB of it, so at most 1.3x.
	in.Path.FPI = 3000
	pr = prediction(t, PlanPhysical(in, v), KeyWALCompression)
	if pr.Drain != 0 || !strings.Contains(pr.NotPredicted, "3000 full-page images") || !strings.Contains(pr.NotPredicted, "at most 1.3x as fast") {
		t.Errorf("some images: %+v", pr)
	}
	if texts := physicalTexts(Verdict{Name: Network, Limit: StageLink}, in); !slices.ContainsFunc(texts.Helps, func(a Advice) bool { return a.Key == KeyWALCompression }) {
		t.Errorf("helps %v: want wal_compression where the WAL carries images", texts.Helps)
	}
	in.Path.FPI, in.Path.WALBytes = -1, -1
	if pr = prediction(t, PlanPhysical(in, v), KeyWALCompression); pr.Drain != 0 || !strings.Contains(pr.NotPredicted, "SELECT wal_fpi, wal_bytes FROM pg_stat_wal") {
		t.Errorf("not read: %+v", pr)
	}
}
