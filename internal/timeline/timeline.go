package timeline

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/quote"
	"github.com/lagscope/lagscope/internal/recorder"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/units"
)

// Window is one classified window of one path (or, with Gap set, a window
// with no samples).
type Window struct {
	From, To   time.Time
	Slot       string
	Verdict    model.VerdictName
	Confidence float64
	LagBytes   int64
	// Limit is the stage that limited the path in the window ("" when
	// none did: caught up, stalled, inconclusive), and Cause the
	// verdict's headline and cause: what the HTML page's band and
	// incident table show.
	Limit model.StageName
	Cause string
	// Gap is why nothing was sampled ("" when the window was classified).
	Gap string
}

// How an incident ended (Incident.Ended).
const (
	EndedCaughtUp  = "drained"
	EndedChanged   = "changed"
	EndedGap       = "not-sampled"
	EndedOngoing   = "ongoing"
	EndedNoVerdict = "no-verdict"
)

// Incident is a stretch of consecutive windows of a path with the same
// finding (a verdict other than caught-up).
type Incident struct {
	Slot    string            `json:"slot"`
	Verdict model.VerdictName `json:"verdict"`
	// Limit is the limiting stage and Cause the headline (and cause) of
	// the incident's first window.
	Limit model.StageName `json:"limit,omitempty"`
	Cause string          `json:"cause,omitempty"`
	Start time.Time       `json:"start"`
	End   time.Time       `json:"end"`
	// PeakLagBytes is the largest unconfirmed WAL at a window's end.
	PeakLagBytes int64 `json:"peak_lag_bytes"`
	// Confidence is the highest of its windows'.
	Confidence float64 `json:"confidence"`
	Windows    int     `json:"windows"`
	// Ended is how it ended (Ended* constants); Then says more: the next
	// verdict, or why the next window was not sampled.
	Ended string `json:"ended"`
	Then  string `json:"then,omitempty"`
}

// Timeline is a recording's incidents over [From, To).
type Timeline struct {
	Dir       string     `json:"dir"`
	From      time.Time  `json:"from"`
	To        time.Time  `json:"to"`
	WindowS   float64    `json:"window_s"`
	Windows   int        `json:"windows"`
	NotSample int        `json:"windows_not_sampled"`
	Incidents []Incident `json:"incidents"`
	// Series is every window of every path (gaps too), in order: the lag
	// and the limiting stage over the span, drawn by HTML.
	Series []Window `json:"-"`
}

// Read classifies the recording in dir over [from, to) in windows of width
// and lists its incidents.
func Read(dir string, from, to time.Time, width time.Duration) (Timeline, error) {
	tl := Timeline{Dir: dir, From: from, To: to, WindowS: width.Seconds()}
	var ws []Window
	slots := map[string]bool{}
	err := recorder.Windows(dir, from, to, width, func(wf, wt time.Time, rec *sample.Recording, down string) error {
		tl.Windows++
		if rec == nil {
			tl.NotSample++
			if down == "" {
				down = "not recorded"
			}
			for s := range slots {
				ws = append(ws, Window{From: wf, To: wt, Slot: s, Gap: down})
			}
			return nil
		}
		if rec.End.Sub(rec.Start) < width/2 {
			// A sliver (the recording's last half-window): too little to
			// judge, and no gap either.
			tl.Windows--
			return nil
		}
		rep := diagnose.Build(rec, nil, rec.ProbeHz())
		for _, p := range rep.Paths {
			slots[p.Slot] = true
			cause := p.Headline
			if p.Cause != "" {
				cause += ": " + p.Cause
			}
			ws = append(ws, Window{From: wf, To: wt, Slot: p.Slot, Verdict: p.Name, Confidence: p.Confidence, LagBytes: p.LagBytes, Limit: p.Limit, Cause: cause})
		}
		return nil
	})
	if err != nil {
		return tl, err
	}
	tl.Incidents = Incidents(ws)
	tl.Series = ws
	return tl, nil
}

// Incidents joins each path's consecutive windows with the same finding
// into incidents, in order of start (then slot).
func Incidents(ws []Window) []Incident {
	bySlot := map[string][]Window{}
	var slots []string
	for _, w := range ws {
		if _, ok := bySlot[w.Slot]; !ok {
			slots = append(slots, w.Slot)
		}
		bySlot[w.Slot] = append(bySlot[w.Slot], w)
	}
	var out []Incident
	for _, s := range slots {
		var cur *Incident
		for _, w := range bySlot[s] {
			finding := w.Gap == "" && model.SpecOf(w.Verdict).Finding
			if cur != nil && (!finding || w.Verdict != cur.Verdict || !w.From.Equal(cur.End)) {
				switch {
				case w.Gap != "":
					cur.Ended, cur.Then = EndedGap, w.Gap
				case !w.From.Equal(cur.End):
					cur.Ended, cur.Then = EndedGap, "not recorded"
				case w.Verdict == model.CaughtUp:
					cur.Ended = EndedCaughtUp
				case finding:
					cur.Ended, cur.Then = EndedChanged, string(w.Verdict)
				default:
					cur.Ended, cur.Then = EndedNoVerdict, string(w.Verdict)
				}
				out = append(out, *cur)
				cur = nil
			}
			if !finding {
				continue
			}
			if cur == nil {
				cur = &Incident{Slot: s, Verdict: w.Verdict, Limit: w.Limit, Cause: w.Cause, Start: w.From}
			}
			cur.End, cur.Windows = w.To, cur.Windows+1
			cur.PeakLagBytes = max(cur.PeakLagBytes, w.LagBytes)
			cur.Confidence = max(cur.Confidence, w.Confidence)
		}
		if cur != nil {
			cur.Ended = EndedOngoing
			out = append(out, *cur)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	return out
}

// JSON writes the timeline as indented JSON.
func JSON(w io.Writer, tl Timeline) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(tl)
}

// Text writes the timeline, one incident a line, in loc.
func Text(w io.Writer, tl Timeline, loc *time.Location) error {
	clock := func(t time.Time) string { return t.In(loc).Format("2006-01-02 15:04:05") }
	fmt.Fprintf(w, "lagscope timeline: %s to %s, %d windows of %s (%d not sampled)\n", clock(tl.From), clock(tl.To), tl.Windows, units.FormatSeconds(tl.WindowS), tl.NotSample)
	if len(tl.Incidents) == 0 {
		_, err := fmt.Fprintln(w, "no incident: every window sampled was caught up")
		return err
	}
	for _, in := range tl.Incidents {
		ended := map[string]string{EndedCaughtUp: "caught up", EndedChanged: "became " + in.Then, EndedGap: "then not sampled: " + quote.Escape(in.Then),
			EndedOngoing: "still on at the end", EndedNoVerdict: "then " + in.Then}[in.Ended]
		fmt.Fprintf(w, "%s - %s  %-8s slot %s  %s (confidence %.2f), peak lag %s; %s\n", clock(in.Start), in.End.In(loc).Format("15:04:05"),
			units.FormatSeconds(in.End.Sub(in.Start).Seconds()), quote.Escape(in.Slot), in.Verdict, in.Confidence, units.FormatBytes(float64(in.PeakLagBytes)), ended)
	}
	return nil
}
