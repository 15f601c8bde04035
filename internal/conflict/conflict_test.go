package conflict

import (
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/testkit/recordings"
)

func load(t *testing.T, name string) *sample.Recording {
	t.Helper()
	rec, err := recordings.Read("../classify/testdata", name)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// withCounters gives every tick's subscriptions the counters an 18 server
// reads, update_missing rising by perTick from tick to tick.
func withCounters(rec *sample.Recording, perTick int64) {
	rec.Version = 8
	for i := range rec.Ticks {
		for j := range rec.Ticks[i].Read(sample.SubscriberNode).Subs {
			m := map[string]int64{}
			for _, k := range pg.ConflictKinds {
				m[k] = 7 // counted before the window: not this window's
			}
			m["update_missing"] += perTick * int64(i)
			rec.Ticks[i].Read(sample.SubscriberNode).Subs[j].Conflicts = m
		}
	}
}

func TestConflictsThatRoseInTheWindowAreNamedWithWhatTheyMean(t *testing.T) {
	rec := load(t, "apply-bound-pg18-diag")
	withCounters(rec, 10)
	w := Of(rec, "lab_sub")
	n := int64(0)
	for i := range rec.Ticks {
		if rec.Ticks[i].Read(sample.SubscriberNode).OK {
			n = int64(i)
		}
	}
	first := 0
	for !rec.Ticks[first].Read(sample.SubscriberNode).OK {
		first++
	}
	want := 10 * (n - int64(first))
	if w == nil || !w.Counted || w.Total != want || w.Rose["update_missing"] != want || len(w.Rose) != 1 {
		t.Fatalf("%+v: want update_missing %d alone (the counts from before the window left out)", w, want)
	}
	for _, s := range []string{"update_missing", "skipped", "differ from the publisher's"} {
		if !strings.Contains(w.Text, s) {
			t.Errorf("text %q does not say %q", w.Text, s)
		}
	}
}

func TestNoConflictInTheWindowSaysNothing(t *testing.T) {
	rec := load(t, "apply-bound-pg18-diag")
	withCounters(rec, 0)
	if w := Of(rec, "lab_sub"); w == nil || !w.Counted || w.Total != 0 || w.Text != "" {
		t.Errorf("%+v: want counted, none, nothing said", w)
	}
}

func TestBefore18TheReportSaysConflictsAreNotCountedAndWhatToLookAt(t *testing.T) {
	rec := load(t, "apply-bound-pg16-diag")
	rec.Version = 8
	w := Of(rec, "lab_sub")
	if w == nil || w.Counted || !strings.Contains(w.Text, "not counted") || !strings.Contains(w.Text, "row counts") {
		t.Errorf("%+v: want not counted, with what to compare instead", w)
	}
}

func TestSamplesFromBeforeConflictsWereReadSayNothing(t *testing.T) {
	if w := Of(load(t, "apply-bound-pg18-diag"), "lab_sub"); w != nil {
		t.Errorf("a version 7 recording: %+v, want nil (not read is not 'none')", w)
	}
}
