package model

import (
	"fmt"
	"strings"

	"github.com/lagscope/lagscope/internal/audit"
	"github.com/lagscope/lagscope/internal/quote"
	"github.com/lagscope/lagscope/internal/units"
)

// RowCosts are the per-row cost sources of a path's tables beyond writing
// the row and its btree entries (audit.ApplyRowCosts): what the residual
// of the apply worker's time above the calibrated cost of the WAL it writes
// can be attributed to.
type RowCosts struct {
	// Sources are the triggers, constraints, generated columns and indexes
	// that cost per row, in the setup's order.
	Sources []audit.RowCost
	// Read says every table's constraints and generated columns were read:
	// when false, Sources holds only what indexes and triggers show, and
	// no source can be said to be the only one.
	Read bool
}

// rowCostsOf are the per-row cost sources of subscription sub.
func rowCostsOf(snaps *audit.Snapshots, sub string) RowCosts {
	if snaps == nil {
		return RowCosts{}
	}
	src, read := audit.ApplyRowCosts(*snaps, sub)
	return RowCosts{Sources: src, Read: read}
}

// names are the sources' names for prose, each with its table.
func names(src []audit.RowCost) []string {
	var out []string
	for _, c := range src {
		out = append(out, c.Name()+" on "+c.Table)
	}
	return out
}

// attributed is whom the apply worker's time beyond the calibrated cost of
// its WAL can be put down to for a remedy that removes the sources removes
// says: the sources' names when the setup was read whole and every source
// is one the remedy removes (at least one), else nil and why not, naming
// the other sources.
func (s *RemedySetup) attributed(removes func(audit.RowCost) bool) ([]string, string) {
	switch {
	case s == nil:
		return nil, "the setup was not read, so what else costs the apply worker per row is not known"
	case !s.Costs.Read:
		return nil, "the subscribed tables' constraints and generated columns were not read (a setup from an older lagscope), so what else costs the apply worker per row is not known"
	}
	var mine, other []audit.RowCost
	for _, c := range s.Costs.Sources {
		if removes(c) {
			mine = append(mine, c)
		} else {
			other = append(other, c)
		}
	}
	switch {
	case len(other) > 0:
		return nil, "the apply worker's time beyond its WAL's also goes to " + strings.Join(names(other), ", ") + ", which this does not remove: how much is this one's is not known"
	case len(mine) == 0:
		return nil, "the setup shows nothing this removes among what costs the apply worker per row"
	}
	return names(mine), ""
}

// kinds is a removes func for attributed: the sources of these kinds.
func kinds(ks ...audit.CostKind) func(audit.RowCost) bool {
	return func(c audit.RowCost) bool {
		for _, k := range ks {
			if c.Kind == k {
				return true
			}
		}
		return false
	}
}

// rowCostEvidence is the EvApplyRowCost line of path p when its apply
// stage limits and is busy (CPU and run queue, or without /proc its probes
// with no wait event, half the window or more; "" key: nothing to say).
func rowCostEvidence(p PathFacts, costs RowCosts) Evidence {
	var st Stage
	found := false
	for _, s := range p.Verdict.Stages {
		if s.Name == StageApply && s.Role == "limit" {
			st, found = s, true
		}
	}
	if !found || st.Busy < 0.5 {
		// Not busy: its time goes to waits, which per-row CPU does not explain.
		return Evidence{}
	}
	srcs := "the setup shows no per-row cost beyond the writes"
	switch {
	case len(costs.Sources) > 0:
		srcs = "the setup's per-row costs: " + strings.Join(names(costs.Sources), ", ")
	case !costs.Read:
		srcs = "the setup's constraints and generated columns were not read"
	}
	if st.CPU < 0 {
		return said(EvApplyRowCost, "the apply worker's CPU per row was not measured (/proc not read on the subscriber): how much of its work the WAL it writes explains is not known; "+srcs)
	}
	var rows int64
	var secs float64
	var per []string
	for _, w := range p.Tables {
		if c := w.Changed(); c > 0 {
			rows, secs = rows+c, max(secs, w.Seconds)
			per = append(per, quote.Qualified(w.Schema, w.Name)+" "+units.FormatCount(float64(c)))
		}
	}
	figs := Figures{}
	text := "the apply worker ran on a CPU " + units.Percent(st.CPU) + " of the window"
	if rows > 0 && secs > 0 {
		cpuRow := st.CPU * secs / float64(rows)
		figs["cpu_per_row_s"], figs["rows"] = cpuRow, float64(rows)
		text += fmt.Sprintf(": %.1f µs of CPU per row applied (%s rows: %s)", cpuRow*1e6, units.FormatCount(float64(rows)), strings.Join(per, ", "))
	}
	c, drain := p.Calibration.orDefault(), p.Summary.Progress()
	if w := p.SubWALPerSent; w > 0 && drain > 0 {
		perWAL := st.CPU / (drain * w)
		explained := min(c.ApplyCostPerWAL/perWAL, 1)
		figs["explained_share"], figs["unexplained_share"] = explained, 1-explained
		text += fmt.Sprintf("; %.0f ms of CPU per MB of WAL it wrote, of which the WAL's calibrated cost (%.0f ms a MB, lagscope's lab on %s) explains %s and %s is not explained by the WAL",
			msPerMB(perWAL), msPerMB(c.ApplyCostPerWAL), c.Machine, units.Percent(explained), units.Percent(1-explained))
	} else {
		text += "; the WAL the subscriber wrote was not read, so how much of it the WAL explains is not known"
	}
	return item(EvApplyRowCost, text+"; "+srcs, figs)
}

// withoutKey is ev less its items of kind key.
func withoutKey(ev []Evidence, key EvidenceKey) []Evidence {
	var out []Evidence
	for _, e := range ev {
		if e.Key != key {
			out = append(out, e)
		}
	}
	return out
}
