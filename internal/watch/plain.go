package watch

import (
	"fmt"
	"strings"

	"github.com/lagscope/lagscope/internal/quote"
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
	return out
}
