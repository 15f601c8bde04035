package watch

import (
	"sort"
	"time"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/monitor"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
)

// HistoryLen is how many one-second rates the sparklines keep.
const HistoryLen = 60

// Rates are one second's WAL rates of a path, bytes per second.
type Rates struct{ Generated, Decoded, Confirmed float64 }

// PathLive is what the last ticks say of one slot.
type PathLive struct {
	Slot    string
	Lag     measure.Lag
	History []Rates // oldest first, at most HistoryLen
}

// State is everything the view shows. It is pure: Tick and Update fold
// the monitor's output in, nothing else changes it.
type State struct {
	Pair string
	// Last is the last step's result; Report the last diagnosis (kept
	// through failed steps, which set Err).
	Last   monitor.Update
	Report *report.Report
	Window *sample.Recording
	Err    string
	// LastTick is when the latest tick was read (zero before the first).
	LastTick time.Time
	Paths    map[string]*PathLive
	prev     *sample.Tick
}

// NewState starts an empty view of pair.
func NewState(pair string) *State { return &State{Pair: pair, Paths: map[string]*PathLive{}} }

// Tick folds one live tick in: the lag split and one second of rates.
func (s *State) Tick(t sample.Tick) {
	if !t.Read(sample.PublisherNode).OK {
		return
	}
	s.LastTick = t.At
	for _, sl := range t.Read(sample.PublisherNode).Slots {
		p := s.Paths[sl.Name]
		if p == nil {
			p = &PathLive{Slot: sl.Name}
			s.Paths[sl.Name] = p
		}
		p.Lag = measure.TickLag(t, sl.Name)
		if s.prev == nil {
			continue
		}
		dt := t.At.Sub(s.prev.At).Seconds()
		old, ok := s.prev.Read(sample.PublisherNode).Slot(sl.Name)
		if dt <= 0 || !ok {
			continue
		}
		r := Rates{Generated: sample.Advance(t.Read(sample.PublisherNode).CurrentLSN, s.prev.Read(sample.PublisherNode).CurrentLSN) / dt, Confirmed: sample.Advance(sl.ConfirmedFlush, old.ConfirmedFlush) / dt}
		if sl.ActivePID != 0 && sl.ActivePID == old.ActivePID {
			r.Decoded = sample.Advance(t.Read(sample.PublisherNode).SentBy(sl.ActivePID), s.prev.Read(sample.PublisherNode).SentBy(sl.ActivePID)) / dt
		}
		p.History = append(p.History, r)
		if len(p.History) > HistoryLen {
			p.History = p.History[len(p.History)-HistoryLen:]
		}
	}
	s.prev = &t
}

// Update folds one step's result in.
func (s *State) Update(u monitor.Update) {
	s.Last = u
	if u.Err != nil {
		s.Err = u.Err.Error()
		return
	}
	s.Err = ""
	s.Report, s.Window = u.Report, u.Window
}

// Slots lists the slots to show: the diagnosed paths', then any other
// seen live, in name order.
func (s *State) Slots() []string {
	seen := map[string]bool{}
	var out []string
	if s.Report != nil {
		for _, p := range s.Report.Paths {
			seen[p.Slot] = true
			out = append(out, p.Slot)
		}
	}
	var rest []string
	for n := range s.Paths {
		if !seen[n] {
			rest = append(rest, n)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// Path returns the diagnosed path of slot (nil before its first verdict).
func (s *State) Path(slot string) *report.Path {
	if s.Report == nil {
		return nil
	}
	for i := range s.Report.Paths {
		if s.Report.Paths[i].Slot == slot {
			return &s.Report.Paths[i]
		}
	}
	return nil
}
