package measure

import (
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/testkit/recordings"
)

func load(t *testing.T, name string) *sample.Recording {
	t.Helper()
	rec, err := recordings.Read("../classify/testdata", strings.TrimSuffix(name, ".json"))
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// The series of a recorded apply-bound run: one point per answered tick
// whose last is the window's lag split, and per interval an apply worker
// on a CPU most of the time, as the window's summary says.
func TestTheSeriesOfAnApplyBoundRunAgreesWithItsSummary(t *testing.T) {
	rec := load(t, "apply-bound-pg16-diag.json")
	s := SeriesOf(rec, "lab_sub")
	sum := Summarise(rec, Filter{Slots: map[string]bool{"lab_sub": true}})
	if len(s.Points) != sum.Ticks {
		t.Fatalf("%d points, want one per answered tick (%d)", len(s.Points), sum.Ticks)
	}
	last := s.Points[len(s.Points)-1]
	if got := last.NotYetSent + last.SentNotFlushed + last.FlushedNotConfd; got != sum.Lag.Total || last.NotYetSent != sum.Lag.NotYetSent {
		t.Errorf("last point's lag %d (not sent %d), want the summary's %d (%d)", got, last.NotYetSent, sum.Lag.Total, sum.Lag.NotYetSent)
	}
	var applyCPU float64
	n := 0
	for _, p := range s.Procs {
		if p.Role == sample.RoleApply {
			applyCPU += p.CPUShare
			n++
			if p.WaitShares[CPUEvent] < 0.5 {
				t.Errorf("at %s the apply worker was on a CPU in %.0f%% of probes, want most", p.At.Format("15:04:05"), 100*p.WaitShares[CPUEvent])
			}
		}
	}
	if n != sum.Ticks-1 {
		t.Fatalf("%d apply intervals, want %d", n, sum.Ticks-1)
	}
	if avg := applyCPU / float64(n); avg < sum.Apply.CPUShare-0.05 || avg > sum.Apply.CPUShare+0.05 {
		t.Errorf("apply CPU %.2f on average over the intervals, want the window's %.2f", avg, sum.Apply.CPUShare)
	}
	if len(s.Hosts) != n || s.Hosts[0].Subscriber < 0 {
		t.Errorf("hosts %+v, want one busy share per interval", s.Hosts)
	}
}

func TestWithoutProcTheSeriesSaysUnknown(t *testing.T) {
	rec := load(t, "apply-bound-pg16-diag.json").WithoutProc()
	for _, p := range SeriesOf(rec, "lab_sub").Procs {
		if p.CPUShare != -1 || p.RunqueueShare != -1 {
			t.Fatalf("%s at %s: cpu %.2f runq %.2f without /proc, want -1", p.Role, p.At, p.CPUShare, p.RunqueueShare)
		}
	}
}
