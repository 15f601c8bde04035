package watch

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/diagnose"
	decision "github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/monitor"
	"github.com/lagscope/lagscope/internal/quote"
	"github.com/lagscope/lagscope/internal/sample"
)

// fed is a State fed with a recorded real network run, tick by tick, and
// its diagnosis as one step.
func fed(t *testing.T) (*State, *sample.Recording) {
	t.Helper()
	f, err := os.Open("../classify/testdata/network-pg16-diag.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := sample.ReadRecording(f)
	if err != nil {
		t.Fatal(err)
	}
	s := NewState("lab")
	for _, tk := range rec.Ticks {
		s.Tick(tk)
	}
	rep := diagnose.Build(rec, nil, 20)
	s.Update(monitor.Update{Pair: "lab", At: rec.End, Step: rec, Window: rec, Report: &rep})
	return s, rec
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

func TestTheScreenShowsTheVerdictTheLagSplitAndTheStages(t *testing.T) {
	s, rec := fed(t)
	screen := ansi.ReplaceAllString(Render(s, View{Width: 120, Now: rec.End.Add(2 * time.Second), Window: 30 * time.Second, Step: 5 * time.Second}), "")
	for _, want := range []string{"network (0.", "not sent", "sent, not flushed", "generated", "confirmed", "stage", "walsender", "link", "apply", "updated 2s ago"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	// The lag printed is the last tick's, as measure splits it.
	p := s.Paths[s.Slots()[0]]
	answered := 0
	for _, tk := range rec.Ticks {
		if tk.Read(sample.PublisherNode).OK {
			answered++
		}
	}
	if p.Lag.Total <= 0 || len(p.History) != answered-1 {
		t.Errorf("lag %d bytes, %d seconds of rates; want a backlog and one rate per answered tick after the first (%d)", p.Lag.Total, len(p.History), answered-1)
	}
	conf := 0.0
	for _, h := range p.History {
		conf += h.Confirmed
	}
	// The one-second rates average to the window's rate.
	if avg, want := conf/float64(len(p.History))/1e6, s.Report.Paths[0].ConfirmedMBps; avg < 0.8*want || avg > 1.2*want {
		t.Errorf("confirmed %.2f MB/s on average, want the report's %.2f MB/s within 20%%", avg, want)
	}
}

func TestPlainLinesNameTheVerdictAndTheLag(t *testing.T) {
	s, _ := fed(t)
	lines := Lines(s)
	if len(lines) != 1 || !regexp.MustCompile(`lab/lab_sub: network \(0\.\d\d\) limit link; lag [0-9.]+ [kMG]?B \(not sent`).MatchString(lines[0]) {
		t.Errorf("lines = %q", lines)
	}
	s.Update(monitor.Update{Pair: "lab", At: time.Now(), Err: errAway})
	if l := Lines(s); len(l) != 1 || !strings.Contains(l[0], "step failed: server went away") {
		t.Errorf("failed step: %q", l)
	}
}

type awayErr struct{}

func (awayErr) Error() string { return "server went away" }

var errAway = awayErr{}

func TestSparklineScalesToTheLargestValue(t *testing.T) {
	if got := Sparkline([]float64{0, 1, 2, 4, 8}, 10); got != "▁▂▃▅█" {
		t.Errorf("Sparkline = %q", got)
	}
	if got := Sparkline([]float64{1, 2, 3}, 2); got != "▆█" {
		t.Errorf("last 2 of 3 = %q", got)
	}
}

// hostile is a name as other people choose it: a screen clear, an OSC 52
// write to the clipboard, a right-to-left override, a line feed, a backtick
// and a '|'.
const hostile = "ev\x1b[2Jil`na|me\u202e\nx\x1b]52;c;cm0gLXJmIC8K\x07"

func TestTheScreenAndThePlainLinesShowHostileTextEscaped(t *testing.T) {
	s, rec := fed(t)
	p := &s.Report.Paths[0]
	p.Subscription, p.Headline, p.Cause = hostile, "headline "+hostile, "cause "+hostile
	p.Evidence = []decision.Evidence{{Text: "blocked by UPDATE t SET x = 1 /* " + hostile + " */"}}
	p.Name, p.Limit = "lock "+hostile, "apply "+hostile
	p.Stages[0].Name = "stage " + hostile
	s.Report.Publisher.Version = "16 " + hostile
	screen := Render(s, View{Width: 200, Now: rec.End, Window: 30 * time.Second, Step: 5 * time.Second, Message: "saved to " + hostile})
	plain := strings.Join(Lines(s), "\n")
	s.Update(monitor.Update{Pair: "lab", At: time.Now(), Err: hostileErr{}})
	failed := Render(s, View{Width: 120, Now: rec.End})
	for _, c := range []struct {
		name, out string
	}{
		{"the screen", ansi.ReplaceAllString(screen, "")},
		{"the plain line", plain},
		{"the screen of a failed step", ansi.ReplaceAllString(failed, "")},
		{"the plain line of a failed step", strings.Join(Lines(s), "\n")},
	} {
		for i, r := range c.out {
			if r != '\n' && !quote.Printable(string(r)) {
				t.Errorf("%s: unprintable rune %U at %q", c.name, r, c.out[max(0, i-20):min(len(c.out), i+20)])
			}
		}
		for _, v := range []string{`\x1b[2J`, `\x1b]52;c;cm0gLXJmIC8K\x07`, `\u202e`, `\n`} {
			if !strings.Contains(c.out, v) {
				t.Errorf("%s does not show %s:\n%s", c.name, v, c.out)
			}
		}
	}
}

type hostileErr struct{}

func (hostileErr) Error() string { return "server said: " + hostile }
