package sample

// Merge joins consecutive recordings of the same servers into one window:
// 'lagscope exporter' and 'lagscope watch' sample in steps and classify the
// last few steps together (a rolling window). Ticks, probes and gaps are
// concatenated in order; the servers' descriptions come from the newest
// recording (a restart may have changed a version), and Start and End span
// them all. The recordings are not modified; nil entries are skipped, and
// Merge returns nil when none is left.
func Merge(recs ...*Recording) *Recording {
	var out *Recording
	for _, r := range recs {
		if r == nil {
			continue
		}
		if out == nil {
			out = &Recording{Version: r.Version, Start: r.Start}
		}
		out.Version = max(out.Version, r.Version)
		out.End = r.End
		out.Nodes = r.Nodes
		out.Ticks = append(out.Ticks, r.Ticks...)
		out.Probes = append(out.Probes, r.Probes...)
		out.Gaps = append(out.Gaps, r.Gaps...)
	}
	return out
}
