package sample

// The default wait-event probe rates. Each probe instant costs the server
// it observes about 0.1-0.25 ms of CPU (a wake from a sleep and a read of
// its backends' status; measured on the lab's 2-vCPU VM, PostgreSQL 16.14),
// most of what diagnose costs a server at 20 Hz. Where this host's /proc
// shows a side's processes, their CPU time and run-queue delay come from
// /proc and the probes only weigh the wait events: half the rate keeps
// every recorded verdict (TestHalfTheProbesKeepEveryVerdict) at half the
// probes' cost. Where it does not, the probes' late wakes stand in for the
// run queue, and every one counts.
const (
	ProcProbeHz   = 10
	NoProcProbeHz = 20
)

// probeHz is a side's probe rate for the ticks after one that read /proc
// (procRead) or did not: asked, when asked for (> 0).
func probeHz(asked float64, procRead bool) float64 {
	switch {
	case asked > 0:
		return asked
	case procRead:
		return ProcProbeHz
	default:
		return NoProcProbeHz
	}
}

// probedHz is the rate the side's probes ran at in the run (0: none were
// planned, or its wait events came from pg_wait_sampling).
func (s *session) probedHz() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.history {
		return 0
	}
	return s.maxHz
}
