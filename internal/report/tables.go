package report

import (
	"fmt"
	"strings"

	"github.com/lagscope/lagscope/internal/units"
)

// tableHeader heads the per-table work: what the subscriber did to each of
// the subscription's tables in the window (pg_stat_user_tables), as rates,
// the HOT share of the updates, and the rows sequential scans read per row
// updated or deleted (about half the table when each change scans for its
// row: REPLICA IDENTITY FULL without a usable index).
var tableHeader = []string{"table", "ins/s", "upd/s", "del/s", "HOT", "seq scans/s", "rows read/change", "idx scans/s"}

// tableTitle introduces the per-table work in every format.
const tableTitle = "tables (what the subscriber did to each in the window: pg_stat_user_tables)"

// tableRows are the rows of tableHeader for the tables that changed or
// were scanned in the window, in the report's order.
func tableRows(p Path) [][]string {
	var out [][]string
	for _, w := range p.Tables {
		if w.Changed() == 0 && w.SeqScans == 0 && w.IdxScans == 0 {
			continue
		}
		hot := "-"
		if w.Updated > 0 {
			hot = units.Percent(float64(w.HOTUpdated) / float64(w.Updated))
		}
		read := "-"
		if w.Updated+w.Deleted > 0 && w.SeqRead > 0 {
			read = units.FormatCount(w.SeqReadPerChange())
		}
		rate := func(n int64) string { return units.FormatCount(w.PerSecond(n)) }
		out = append(out, []string{w.Schema + "." + w.Name, rate(w.Inserted), rate(w.Updated), rate(w.Deleted), hot,
			rate(w.SeqScans), read, rate(w.IdxScans)})
	}
	return out
}

// applyWALLine says what WAL the apply workers wrote and what buffer I/O
// they did on relations (18+), or "".
func applyWALLine(p Path) string {
	var parts []string
	if p.ApplyWALBytes > 0 {
		parts = append(parts, fmt.Sprintf("wrote %s of WAL (pg_stat_get_backend_wal)", size(p.ApplyWALBytes)))
	}
	if io := p.ApplyIO; io != nil && io.Reads+io.Hits+io.Extends+io.Writes > 0 {
		parts = append(parts, fmt.Sprintf("found %s blocks in shared buffers and read %s from disk or the page cache (%s hits), extended relations by %s blocks and wrote %s dirty buffers (pg_stat_get_backend_io)",
			units.FormatCount(float64(io.Hits)), units.FormatCount(float64(io.Reads)), units.Percent(float64(io.Hits)/float64(max(io.Reads+io.Hits, 1))),
			units.FormatCount(float64(io.Extends)), units.FormatCount(float64(io.Writes))))
	}
	if len(parts) == 0 {
		return ""
	}
	return "in the window the apply workers " + strings.Join(parts, "; ")
}
