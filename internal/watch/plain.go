package watch

import (
	"fmt"
	"strings"

	decision "github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/quote"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/units"
)

// Lines are what a step prints when stdout is not a terminal: one line per
// path (or one for a failed step), without colour, names and errors escaped
// (quote.Escape).
func Lines(s *State) []string {
	at := s.Last.At.UTC().Format("2006-01-02T15:04:05Z")
	if s.Err != "" {
		return []string{fmt.Sprintf("%s %s: step failed: %s", at, quote.Escape(s.Pair), quote.Escape(s.Err))}
	}
	var out []string
	for _, sl := range s.Slots() {
		p := s.Path(sl)
		if p == nil {
			continue
		}
		limit := quote.Escape(string(p.Limit))
		if limit == "" {
			limit = "none"
		}
		l := p.Lag
		out = append(out, strings.Join([]string{at, quote.Escape(s.Pair+"/"+sl) + ":", quote.Escape(string(p.Name)),
			fmt.Sprintf("(%.2f)", p.Confidence), "limit " + limit + ";",
			"lag " + units.FormatBytes(float64(l.Total)),
			fmt.Sprintf("(not sent %s, sent not flushed %s, flushed not confirmed %s);",
				units.FormatBytes(float64(l.NotYetSent)), units.FormatBytes(float64(l.SentNotFlushed)), units.FormatBytes(float64(l.FlushedNotConfd))),
			"generated " + units.FormatRate(p.GeneratedMBps*1e6) + ", decoded " + units.FormatRate(p.DecodedMBps*1e6) + ", confirmed " + units.FormatRate(p.ConfirmedMBps*1e6)}, " "))
	}
	return append(out, physicalLines(s, at)...)
}

// physicalLines are the plain lines of a report's physical standbys: one
// per standby, its verdict, lag per stage, rates and catch-up forecast.
func physicalLines(s *State, at string) []string {
	if s.Report == nil {
		return nil
	}
	var out []string
	for _, p := range s.Report.Physical {
		limit := quote.Escape(string(p.Limit))
		if limit == "" {
			limit = "none"
		}
		out = append(out, strings.Join([]string{at, quote.Escape(s.Pair+"/"+p.Standby) + " (physical):", quote.Escape(string(p.Name)),
			fmt.Sprintf("(%.2f)", p.Confidence), "limit " + limit + ";", "lag " + physicalLag(p) + ";",
			"generated " + units.FormatRate(p.GeneratedMBps*1e6) + ", received " + units.FormatRate(p.ReceivedMBps*1e6) + ", replayed " + units.FormatRate(p.ReplayedMBps*1e6) + ";",
			"catch-up " + catchUp(p)}, " "))
	}
	return out
}

// physicalLag is a physical path's lag: the WAL not replayed, its time,
// and its split per stage (not yet sent, in flight, received not
// replayed).
func physicalLag(p report.PhysicalPath) string {
	total, ok := p.LagBytes.Get()
	if !ok {
		return "unknown"
	}
	out := units.FormatBytes(float64(total))
	if sec, ok := p.LagTime.Seconds.Get(); ok {
		out += " (" + units.FormatSeconds(sec) + ")"
	}
	var parts []string
	for _, l := range p.LagPerStage {
		parts = append(parts, stageLagNoun(l.Stage)+" "+units.FormatBytes(float64(l.Bytes)))
	}
	if len(parts) > 0 {
		out += " (" + strings.Join(parts, ", ") + ")"
	}
	return out
}

// stageLagNoun says where a physical stage's WAL waits.
func stageLagNoun(st decision.StageName) string {
	switch st {
	case decision.StageWalsender:
		return "not sent"
	case decision.StageLink:
		return "in flight"
	case decision.StageReplay:
		return "received not replayed"
	}
	return quote.Escape(string(st))
}

// catchUp is the catch-up forecast in short: "none needed" when nothing is
// behind, the seconds, or "never at this rate".
func catchUp(p report.PhysicalPath) string {
	switch {
	case p.CatchUpS > 0:
		return "in about " + units.FormatSeconds(p.CatchUpS)
	case p.CatchUp != "":
		return "never at this rate"
	}
	if _, ok := p.LagBytes.Get(); !ok {
		return "unknown"
	}
	return "none needed"
}
