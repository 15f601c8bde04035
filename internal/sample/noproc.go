package sample

// NoProcCause is the ProcUnavailable text of a recording made, or turned,
// into one without /proc figures.
const NoProcCause = "process figures disabled (--no-proc)"

// WithoutProc returns a copy of the recording as 'diagnose --no-proc' would
// have made it: no process or host figures from /proc, everything read from
// the servers kept (positions, wait events, CPU bursts, wake-up lateness).
// The lab classifies each of its recordings both ways with it.
func (r *Recording) WithoutProc() *Recording {
	out := *r
	out.Nodes = make([]Node, len(r.Nodes))
	for i, n := range r.Nodes {
		n.ProcUnavailable, n.CPUs = NoProcCause, 0
		out.Nodes[i] = n
	}
	out.Ticks = make([]Tick, len(r.Ticks))
	for i, t := range r.Ticks {
		t.Procs = nil
		t.Reads = make([]Read, len(r.Ticks[i].Reads))
		for j, rd := range r.Ticks[i].Reads {
			rd.Host, rd.WALDisk, rd.Load = nil, nil, nil
			t.Reads[j] = rd
		}
		out.Ticks[i] = t
	}
	return &out
}
