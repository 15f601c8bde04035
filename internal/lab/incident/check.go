package incident

import (
	"fmt"
	"math"
	"time"

	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/timeline"
)

// Stretch is what the lab made: a state from From to To (the fault's
// start, and when its backlog had drained), with the live diagnose run
// in it.
type Stretch struct {
	Kind     Kind              `json:"kind"`
	Want     model.VerdictName `json:"want"`
	From     time.Time         `json:"from"`
	To       time.Time         `json:"to"`
	Live     *Live             `json:"live,omitempty"`
	Incident *Found            `json:"incident,omitempty"`
	// OK says the timeline found it (a fault: an incident of its verdict
	// starting and ending within one window of From and To; caught up: no
	// incident over more than one window of it), and Why says what was
	// wrong.
	OK  bool   `json:"timeline_ok"`
	Why string `json:"why,omitempty"`
}

// Live is a live 'lagscope diagnose' over [From, To) in a stretch and
// 'diagnose --from-recording --between FROM,TO' over the same window.
type Live struct {
	From     time.Time         `json:"from"`
	To       time.Time         `json:"to"`
	Verdict  model.VerdictName `json:"verdict"`
	Recorded model.VerdictName `json:"recorded_verdict"`
	// Err is why either gave no verdict.
	Err string `json:"error,omitempty"`
}

// Same says the recording's diagnosis of the window gave the live
// verdict.
func (l *Live) Same() bool { return l.Err == "" && l.Verdict != "" && l.Verdict == l.Recorded }

// Found is the timeline's incident matched to a fault, with how far its
// start and end were from the lab's (seconds, positive: later).
type Found struct {
	Verdict   model.VerdictName `json:"verdict"`
	Start     time.Time         `json:"start"`
	End       time.Time         `json:"end"`
	StartOffS float64           `json:"start_offset_s"`
	EndOffS   float64           `json:"end_offset_s"`
}

// Check matches the timeline's incidents to the stretches, setting each
// stretch's Incident, OK and Why. A fault needs an incident of its
// verdict (the one overlapping it most) whose start and end are within
// width of the stretch's; a caught-up stretch may overlap an incident by
// at most width (a neighbour's edge window).
func Check(st []Stretch, incs []timeline.Incident, width time.Duration) {
	for i := range st {
		s := &st[i]
		if s.Want == "" {
			// A drain: shown, not checked.
			s.OK, s.Incident = true, most(s, incs, "")
			continue
		}
		if s.Want == model.CaughtUp {
			s.OK, s.Why = true, ""
			for _, in := range incs {
				if o := overlap(s.From, s.To, in.Start, in.End); o > width {
					s.OK = false
					s.Why = fmt.Sprintf("%s incident %s-%s covers %.0f s of it", in.Verdict, in.Start.Format(time.TimeOnly), in.End.Format(time.TimeOnly), o.Seconds())
					break
				}
			}
			continue
		}
		if s.Incident = most(s, incs, s.Want); s.Incident == nil {
			s.OK, s.Why = false, fmt.Sprintf("no %s incident overlaps it", s.Want)
			continue
		}
		f := s.Incident
		s.OK = math.Abs(f.StartOffS) <= width.Seconds() && math.Abs(f.EndOffS) <= width.Seconds()
		if !s.OK {
			s.Why = fmt.Sprintf("the incident starts %+.0f s and ends %+.0f s from the lab's times: want within %s", s.Incident.StartOffS, s.Incident.EndOffS, width)
		}
	}
}

// most is the incident of verdict want ("" = any) that overlaps the
// stretch most (nil when none does), with its offsets from the stretch.
func most(s *Stretch, incs []timeline.Incident, want model.VerdictName) *Found {
	var best *timeline.Incident
	var longest time.Duration
	for j := range incs {
		in := &incs[j]
		if o := overlap(s.From, s.To, in.Start, in.End); (want == "" || in.Verdict == want) && o > longest {
			best, longest = in, o
		}
	}
	if best == nil {
		return nil
	}
	return &Found{Verdict: best.Verdict, Start: best.Start, End: best.End,
		StartOffS: best.Start.Sub(s.From).Seconds(), EndOffS: best.End.Sub(s.To).Seconds()}
}

// overlap is how long [a0, a1) and [b0, b1) share.
func overlap(a0, a1, b0, b1 time.Time) time.Duration {
	lo, hi := a0, a1
	if b0.After(lo) {
		lo = b0
	}
	if b1.Before(hi) {
		hi = b1
	}
	return max(hi.Sub(lo), 0)
}
