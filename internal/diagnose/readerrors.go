package diagnose

import (
	"fmt"
	"sort"

	"github.com/lagscope/lagscope/internal/sample"
)

// readErrorMeaning says what a failed best-effort read leaves unknown.
var readErrorMeaning = map[string]string{
	sample.SourceBlockers:     "whether a session blocked the apply worker at those ticks is unknown (not \"no blocker\")",
	sample.SourceCopyProgress: "the initial copy's progress at those ticks is unknown",
	sample.SourceCPUBurst:     "the in-server CPU burst is missing there: CPU contention from inside the server rests on fewer samples",
	sample.SourceApplyWork:    "what the apply worker did per table is measured between the ticks that read it, a shorter span than the window",
	sample.SourceActive:       "the backends active at those ticks are unknown: the competing load's shares rest on fewer ticks",
	sample.SourceHostLoad:     "the CPU the host's other processes used over the window is unknown (the competing load is not named)",
	sample.SourceWALDisk:      "when the file system holding pg_wal fills is not forecast (statfs of the data directory needs the server's OS user or root)",
}

// readErrorNotes turns the recording's failed best-effort reads into one
// caveat per side and source: how many ticks, the last reason, and what
// stays unknown.
func readErrorNotes(rec *sample.Recording) []string {
	type key struct{ side, source string }
	count := map[key]int{}
	last := map[key]string{}
	for _, t := range rec.Ticks {
		for _, e := range t.ReadErrors {
			k := key{e.Side, e.Source}
			count[k]++
			last[k] = e.Err
		}
	}
	var notes []string
	for k, n := range count {
		notes = append(notes, fmt.Sprintf("the %s's %s could not be read at %d of %d ticks (last: %s): %s",
			k.side, k.source, n, len(rec.Ticks), last[k], readErrorMeaning[k.source]))
	}
	sort.Strings(notes)
	return notes
}
