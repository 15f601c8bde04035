package measure

import (
	"encoding/json"

	"github.com/lagscope/lagscope/internal/unknown"
)

// MarshalJSON writes CPU and run-queue shares not read from /proc as null.
func (p Proc) MarshalJSON() ([]byte, error) {
	type plain Proc
	return unknown.Marshal(plain(p), "cpu_share", "runqueue_share")
}

// UnmarshalJSON reads null (and an older report's -1) as unknown (-1).
func (p *Proc) UnmarshalJSON(b []byte) error {
	type plain Proc
	q := plain{CPUShare: -1, RunqueueShare: -1}
	if err := json.Unmarshal(b, &q); err != nil {
		return err
	}
	*p = Proc(q)
	return nil
}

// MarshalJSON writes an unknown throttled share (no quota, no counters)
// as null.
func (t Throttle) MarshalJSON() ([]byte, error) {
	type plain Throttle
	return unknown.Marshal(plain(t), "throttled_share")
}

// UnmarshalJSON reads null as unknown (-1).
func (t *Throttle) UnmarshalJSON(b []byte) error {
	type plain Throttle
	q := plain{Share: -1}
	if err := json.Unmarshal(b, &q); err != nil {
		return err
	}
	*t = Throttle(q)
	return nil
}

// MarshalJSON writes the burst and lateness figures that were not
// measured (no bursts, no probes) as null.
func (c Contention) MarshalJSON() ([]byte, error) {
	type plain Contention
	return unknown.Marshal(plain(c), "stretch", "late_median_ms", "late_p90_ms")
}

// UnmarshalJSON reads null (and an older report's -1) as unknown (-1).
func (c *Contention) UnmarshalJSON(b []byte) error {
	type plain Contention
	q := plain{Stretch: -1, LateMedianMS: -1, LateP90MS: -1}
	if err := json.Unmarshal(b, &q); err != nil {
		return err
	}
	*c = Contention(q)
	return nil
}
