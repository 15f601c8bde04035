package report

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/model"

	"github.com/lagscope/lagscope/internal/units"
)

// stageHeader names the stage table's columns: utilisation (busy + own
// waits), CPU and run queue (/proc), own waits, blocked on the next stage,
// starved by the previous one, and headroom (1 / utilisation).
var stageHeader = []string{"stage", "util", "cpu", "runq", "own", "blocked", "starved", "headroom"}

// stageRows turns a path's stages into table cells, one row per stage.
func stageRows(st []model.Stage) [][]string {
	var rows [][]string
	for _, s := range st {
		name := string(s.Name)
		if s.Role != "" {
			name += " (" + s.Role + ")"
		}
		if !s.Known() {
			rows = append(rows, []string{name, "-", "-", "-", "-", "-", "-", "-"})
			continue
		}
		head := "-"
		if s.Headroom > 0 {
			head = fmt.Sprintf("%.1fx", s.Headroom)
			if s.Headroom >= 10 {
				head = ">10x"
			}
		}
		rows = append(rows, []string{name, share(s.Utilisation), share(s.CPU), share(s.Runq), share(s.Own), share(s.Blocked), share(s.Starved), head})
	}
	return rows
}

func share(v float64) string {
	if v < 0 {
		return "-"
	}
	return units.Percent(v)
}

// StageTable returns the stage table's header and rows (one per stage),
// as the text report prints them: for live views such as 'lagscope watch'.
func StageTable(st []model.Stage) (header []string, rows [][]string) {
	return stageHeader, stageRows(st)
}
