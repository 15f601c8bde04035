package watch

import (
	"strings"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/monitor"
	"github.com/lagscope/lagscope/internal/testkit/recordings"
)

// fedPhysical is a State given the physical report of a lab recording of
// ../classify/testdata/physical as one step.
func fedPhysical(t *testing.T, name string, standby string) *State {
	t.Helper()
	rec, err := recordings.Read("../classify/testdata/physical", name)
	if err != nil {
		t.Fatal(err)
	}
	rep := diagnose.BuildPhysical(rec, 20)
	if standby != "" {
		rep.Physical[0].Standby = standby
	}
	s := NewState("lab")
	s.Update(monitor.Update{Pair: "lab", At: rec.End, Step: rec, Window: rec, Report: &rep})
	return s
}

// A paused standby (18.4, 103 MB received and not replayed) prints its
// verdict, its lag per stage and "never at this rate"; an idle primary's
// standby 0 B behind with no catch-up needed.
func TestPlainLinesOfAPhysicalStandby(t *testing.T) {
	cases := []struct {
		file string
		want []string
	}{
		{"replay-paused-pg18-diag", []string{"lab/lab_standby (physical): replay-paused (", "limit startup;", "lag 103 MB (10 s) (not sent 0 B, in flight 0 B, received not replayed 103 MB);",
			"replayed 0 B/s;", "catch-up never at this rate"}},
		{"standby-idle-pg15-diag", []string{"lab/lab_standby (physical): caught-up (", "limit none;", "lag 0 B (0.0 s) (not sent 0 B, in flight 0 B, received not replayed 0 B);", "catch-up none needed"}},
		{"sync-standby-wait-pg18-diag", []string{"sync-standby-wait (", "catch-up none needed"}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			lines := Lines(fedPhysical(t, c.file, ""))
			if len(lines) != 1 {
				t.Fatalf("%d lines, want 1: %q", len(lines), lines)
			}
			for _, w := range c.want {
				if !strings.Contains(lines[0], w) {
					t.Errorf("line lacks %q:\n%s", w, lines[0])
				}
			}
		})
	}
}

// The screen draws a physical standby with its verdict, lag, rates,
// catch-up and stages, and the servers' versions; a standby's name with a
// terminal escape is escaped.
func TestTheScreenShowsAPhysicalStandby(t *testing.T) {
	s := fedPhysical(t, "replay-paused-pg18-diag", "evil\x1b]0;owned\x07")
	raw := Render(s, View{Width: 120, Now: s.Last.At.Add(time.Second), Window: 10 * time.Second, Step: 5 * time.Second})
	screen := ansi.ReplaceAllString(raw, "")
	for _, want := range []string{"primary 18.", "standby 18.", "(physical)", "replay-paused (", "received not replayed 103 MB", "received 10.0 MB/s", "replayed 0 B/s", "catch-up   never at this rate", "startup"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(raw, "\x1b]0;") || strings.Contains(strings.Join(Lines(s), "\n"), "\x1b") {
		t.Error("the standby's name reached the terminal unescaped")
	}
	if strings.Contains(screen, "waiting for the first samples") {
		t.Error("a physical report is not 'waiting'")
	}
}
