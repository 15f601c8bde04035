package monitor

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/testkit/recordings"
)

// steps cuts a recording into steps of length step (the last one up to
// its end), as the monitor's sampler would have read them.
func steps(rec *sample.Recording, step time.Duration) []*sample.Recording {
	var out []*sample.Recording
	for from := rec.Start; from.Before(rec.End); from = from.Add(step) {
		to := from.Add(step)
		last := rec.End.Sub(to) < step/2
		if last {
			to = rec.End
		}
		s := &sample.Recording{Version: rec.Version, Start: from, End: to, Nodes: rec.Nodes}
		for _, t := range rec.Ticks {
			if !t.At.Before(from) && (t.At.Before(to) || last) {
				s.Ticks = append(s.Ticks, t)
			}
		}
		for _, p := range rec.Probes {
			if !p.At.Before(from) && (p.At.Before(to) || last) {
				s.Probes = append(s.Probes, p)
			}
		}
		out = append(out, s)
		if last {
			break
		}
	}
	return out
}

// A monitor of a physical standby (--primary/--standby) judges its rolling
// window with diagnose.BuildPhysical: each lab recording of
// ../classify/testdata/physical, fed step by step, ends in the physical
// report of its whole window, with the verdict the lab made.
func TestAPhysicalMonitorJudgesItsWindowAsAPhysicalPath(t *testing.T) {
	exps, err := recordings.LoadIn(filepath.Join("..", "classify", "testdata"), "physical")
	if err != nil {
		t.Fatal(err)
	}
	if len(exps) == 0 {
		t.Fatal("no recordings in ../classify/testdata/physical")
	}
	for _, e := range exps {
		t.Run(filepath.Base(e.File), func(t *testing.T) {
			f, err := os.Open(e.File)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rec, err := sample.ReadRecording(f)
			if err != nil {
				t.Fatal(err)
			}
			o := Options{Pair: "p", Window: rec.End.Sub(rec.Start) + time.Second, Step: 5 * time.Second,
				Diagnose: diagnose.Options{Primary: "host=primary", Standby: "host=standby", ProbeHz: 20}}
			if err := o.Validate(); err != nil {
				t.Fatal(err)
			}
			w := &watcher{o: o, down: map[string]string{}}
			var u Update
			cut := steps(rec, o.Step)
			for _, s := range cut {
				u = w.finish(s)
			}
			if len(cut) < 2 {
				t.Fatalf("%d steps from a %s recording", len(cut), rec.End.Sub(rec.Start))
			}
			if u.Report == nil || len(u.Report.Physical) != 1 || len(u.Report.Paths) != 0 {
				t.Fatalf("report %+v: want one physical path and no logical one", u.Report)
			}
			if got := string(u.Report.Physical[0].Name); got != e.Verdict {
				t.Errorf("verdict %s, want %s (the lab's %s)", got, e.Verdict, e.State)
			}
			if !diagnose.IsPhysical(u.Window) || len(u.Window.Ticks) != len(rec.Ticks) {
				t.Errorf("window of %d ticks (physical %v), want the recording's %d", len(u.Window.Ticks), diagnose.IsPhysical(u.Window), len(rec.Ticks))
			}
			if len(u.Down) != 0 {
				t.Errorf("down %v: every server answered", u.Down)
			}
		})
	}
}
