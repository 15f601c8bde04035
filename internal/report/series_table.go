package report

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/sample"
)

// seriesHeader and seriesRows are the time series as a small table (the
// charts' figures, for markdown): per tick the lag split and the rates
// since the tick before, the walsender's and apply worker's CPU (or their
// on-CPU probe share without /proc) and top wait event.
var seriesHeader = []string{"t", "not sent", "sent, not flushed", "flushed, not confirmed", "generated", "confirmed", "walsender", "apply"}

func seriesRows(s *measure.Series) [][]string {
	if s == nil || len(s.Points) < 2 {
		return nil
	}
	t0 := s.Points[0].At
	procs := map[string]map[int64]measure.ProcPoint{}
	for _, pp := range s.Procs {
		if procs[pp.Role] == nil {
			procs[pp.Role] = map[int64]measure.ProcPoint{}
		}
		procs[pp.Role][pp.At.UnixNano()] = pp
	}
	var rows [][]string
	for i, pt := range s.Points {
		row := []string{fmt.Sprintf("%.0f s", pt.At.Sub(t0).Seconds()), size(pt.NotYetSent), size(pt.SentNotFlushed), size(pt.FlushedNotConfd)}
		if i == 0 {
			rows = append(rows, append(row, "", "", "", ""))
			continue
		}
		prev := s.Points[i-1]
		dt := pt.At.Sub(prev.At).Seconds()
		row = append(row, rate(sample.Advance(pt.Current, prev.Current)/dt), rate(sample.Advance(pt.Confirmed, prev.Confirmed)/dt))
		for _, role := range []string{sample.RoleWalsender, sample.RoleApply} {
			pp, ok := procs[role][pt.At.UnixNano()]
			row = append(row, procCell(pp, ok))
		}
		rows = append(rows, row)
	}
	return rows
}

// procCell says what a process did over one interval: its CPU share and
// its most seen wait event.
func procCell(pp measure.ProcPoint, ok bool) string {
	if !ok {
		return "-"
	}
	top, share := "", 0.0
	for ev, v := range pp.WaitShares {
		if v > share || (v == share && ev < top) {
			top, share = ev, v
		}
	}
	cell := ""
	if pp.CPUShare >= 0 {
		cell = fmt.Sprintf("CPU %.0f%%", 100*pp.CPUShare)
	}
	if top == measure.CPUEvent {
		top = "no wait event"
	}
	if top != "" {
		if cell != "" {
			cell += ", "
		}
		cell += fmt.Sprintf("%s %.0f%%", top, 100*share)
	}
	if cell == "" {
		return "-"
	}
	return cell
}
