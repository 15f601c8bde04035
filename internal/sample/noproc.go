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
	out.Publisher.ProcUnavailable, out.Publisher.CPUs = NoProcCause, 0
	if r.Subscriber != nil {
		sub := *r.Subscriber
		sub.ProcUnavailable, sub.CPUs = NoProcCause, 0
		out.Subscriber = &sub
	}
	out.Ticks = make([]Tick, len(r.Ticks))
	for i, t := range r.Ticks {
		t.Procs, t.PubHost, t.SubHost, t.PubWALDisk = nil, nil, nil, nil
		out.Ticks[i] = t
	}
	return &out
}
