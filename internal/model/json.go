package model

import (
	"encoding/json"

	"github.com/lagscope/lagscope/internal/unknown"
)

// stageShares are a stage's figures that are unknown for a stage lagscope
// does not measure (the link): null then, not zero.
var stageShares = []string{"cpu_share", "runqueue_share", "busy_share", "blocked_share", "starved_share", "own_wait_share", "utilisation", "probes"}

// MarshalJSON writes unknown figures as null: CPU and run queue without
// /proc, and every share of a stage that is not measured (the link).
func (s Stage) MarshalJSON() ([]byte, error) {
	type plain Stage
	if !s.Known() {
		p := plain(s)
		p.CPU, p.Runq, p.Busy, p.Blocked, p.Starved, p.Own, p.Utilisation, p.Probes = -1, -1, -1, -1, -1, -1, -1, -1
		return unknown.Marshal(p, stageShares...)
	}
	return unknown.Marshal(plain(s), "cpu_share", "runqueue_share", "busy_share", "utilisation")
}

// UnmarshalJSON reads null (and an older report's -1) as unknown (-1).
func (s *Stage) UnmarshalJSON(b []byte) error {
	type plain Stage
	p := plain{CPU: -1, Runq: -1, Busy: -1, Utilisation: -1}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*s = Stage(p)
	if !s.Known() {
		// An unmeasured stage's shares were written as null.
		s.Blocked, s.Starved, s.Own, s.Probes = max(s.Blocked, 0), max(s.Starved, 0), max(s.Own, 0), max(s.Probes, 0)
	}
	return nil
}
