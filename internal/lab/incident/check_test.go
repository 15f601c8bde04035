package incident

import (
	"strings"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/timeline"
)

var t0 = time.Date(2026, 12, 6, 3, 0, 0, 0, time.UTC)

func at(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

func stretches() []Stretch {
	return []Stretch{
		{Kind: CaughtUp, Want: model.CaughtUp, From: at(0), To: at(60)},
		{Kind: Lock, Want: model.SubscriberWaits, From: at(60), To: at(100)},
		{Kind: CaughtUp, Want: model.CaughtUp, From: at(100), To: at(160)},
	}
}

// An incident of the fault's verdict within one window of the lab's
// start and end is found; a neighbour's edge window over a caught-up
// stretch is allowed.
func TestAnIncidentWithinOneWindowOfTheLabsTimesIsFound(t *testing.T) {
	st := stretches()
	Check(st, []timeline.Incident{{Verdict: model.SubscriberWaits, Start: at(70), End: at(110)}}, 10*time.Second)
	for _, s := range st {
		if !s.OK {
			t.Errorf("%s: %s", s.Kind, s.Why)
		}
	}
	if f := st[1].Incident; f == nil || f.StartOffS != 10 || f.EndOffS != 10 {
		t.Errorf("found %+v, want offsets +10/+10", f)
	}
}

// An incident that starts two windows late, one of another verdict, or
// one spreading over a caught-up stretch fails, saying why.
func TestAnIncidentLateMisnamedOrOverACaughtUpStretchFails(t *testing.T) {
	for _, c := range []struct {
		name string
		in   timeline.Incident
		bad  int
		why  string
	}{
		{"late", timeline.Incident{Verdict: model.SubscriberWaits, Start: at(80), End: at(100)}, 1, "+20 s"},
		{"misnamed", timeline.Incident{Verdict: model.Network, Start: at(60), End: at(100)}, 1, "no subscriber-waits incident"},
		{"spread", timeline.Incident{Verdict: model.SubscriberWaits, Start: at(60), End: at(130)}, 1, "ends +30 s"},
		{"over caught up", timeline.Incident{Verdict: model.SubscriberWaits, Start: at(40), End: at(100)}, 0, "covers 20 s"},
	} {
		st := stretches()
		Check(st, []timeline.Incident{c.in}, 10*time.Second)
		if st[c.bad].OK || !strings.Contains(st[c.bad].Why, c.why) {
			t.Errorf("%s: stretch %d ok=%v why %q, want it failed with %q", c.name, c.bad, st[c.bad].OK, st[c.bad].Why, c.why)
		}
	}
}

// A run is OK only when every stretch was found and every live verdict
// was given again from the recording.
func TestARunIsOKOnlyWithEveryStretchFoundAndEveryLiveVerdictGivenAgain(t *testing.T) {
	live := func(v, rec model.VerdictName) *Live { return &Live{Verdict: v, Recorded: rec} }
	r := Result{Stretches: []Stretch{{OK: true, Live: live(model.CaughtUp, model.CaughtUp)}, {OK: true, Live: live(model.Network, model.Network)}}}
	if !r.OK() {
		t.Error("every stretch found and given again: want OK")
	}
	r.Stretches[1].Live = live(model.Network, model.WalsenderStarved)
	if r.OK() {
		t.Error("a recorded verdict differs from the live one: want not OK")
	}
	r.Stretches[1].Live, r.Stretches[0].OK = live(model.Network, model.Network), false
	if r.OK() {
		t.Error("a stretch not found: want not OK")
	}
	if (&Result{}).OK() {
		t.Error("no stretch: want not OK")
	}
}

// A drain after a fault is shown with the incident over it, not checked:
// what limits a drain is not the fault's.
func TestADrainShowsItsIncidentAndIsNotChecked(t *testing.T) {
	st := []Stretch{
		{Kind: Starved, Want: model.WalsenderStarved, From: at(0), To: at(30)},
		{Kind: Drain, From: at(30), To: at(60)},
	}
	Check(st, []timeline.Incident{{Verdict: model.WalsenderStarved, Start: at(0), End: at(35)}, {Verdict: model.SubscriberApplyCPU, Start: at(35), End: at(60)}}, 10*time.Second)
	if !st[0].OK || !st[1].OK {
		t.Errorf("ok %v %v (%s), want both", st[0].OK, st[1].OK, st[0].Why)
	}
	if f := st[1].Incident; f == nil || f.Verdict != model.SubscriberApplyCPU {
		t.Errorf("drain's incident %+v, want the apply-bound one over it", f)
	}
}
