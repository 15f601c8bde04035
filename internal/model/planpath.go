package model

import (
	"slices"

	"github.com/lagscope/lagscope/internal/pgversion"
)

// WhatIf predicts what each remedy that applies to path p would buy (Plan),
// from its window's stages and rates, the pair's setup when it was read,
// and the link's rates when the operator gave them.
func WhatIf(p PathFacts, link LinkRates, r SetupRead) []Prediction {
	return Plan(PlanPath(p, link, r))
}

// PlanPath is what the planner knows of path p.
func PlanPath(p PathFacts, link LinkRates, r SetupRead) Path {
	s, v := p.Summary, p.Verdict
	in := Path{Verdict: v.Name, Limit: v.Limit, Stages: v.Stages, Drain: s.Progress(), Generated: s.Generated,
		Backlog: s.Lag.Total, Walsender: s.Walsender, Apply: s.Apply, PubCPUs: p.PubCPUs, SubCPUs: p.SubCPUs, ApplyCPUs: p.ApplyCPUs, Link: link, SubWALPerSent: p.SubWALPerSent, Calibration: p.Calibration,
		PubLoad: s.PubLoad, SubLoad: s.SubLoad}
	if r.Snaps == nil || p.Subscription == "" {
		return in
	}
	// Whatever the verdict: a starved apply worker's extra indexes are a
	// remedy too, once it has a CPU.
	ps := scope(p, r.Results, r.Snaps, RemedyChecks())
	pub, sub := 0, 0
	if r.Snaps.Publisher != nil {
		pub = r.Snaps.Publisher.Version.Major
	}
	if r.Snaps.Subscriber != nil {
		sub = r.Snaps.Subscriber.Version.Major
	}
	in.Setup = &RemedySetup{Found: ps.found, Parallel: r.Snaps.Subscriber != nil && pgversion.ParallelApply.OnBoth(pub, sub),
		Costs: rowCostsOf(r.Snaps, p.Subscription)}
	// The rows the subscriber's sequential scans read per row changed,
	// over the path's tables (each FULL update without an index scans).
	var read, changed int64
	for _, w := range p.Tables {
		read, changed = read+w.SeqRead, changed+w.Updated+w.Deleted
		if c := w.Changed(); c > 0 {
			in.Setup.TableChanges = append(in.Setup.TableChanges, c)
		}
	}
	if changed > 0 {
		in.Setup.RowsReadPerChange = float64(read) / float64(changed)
	}
	return in
}

// RemedyChecks are the checks whose findings make a remedy apply
// (Remedy.Finding), in Remedies' order, each once.
func RemedyChecks() []string {
	var out []string
	for _, r := range Remedies {
		if r.Finding != "" && !slices.Contains(out, string(r.Finding)) {
			out = append(out, string(r.Finding))
		}
	}
	return out
}
