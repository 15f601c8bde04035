package measure

import (
	"slices"

	"github.com/lagscope/lagscope/internal/sample"
)

// StandbySlot is a logical slot on the observed standby (16+: logical
// decoding on a standby), at the last tick that listed it, with the
// walsender decoding it there.
type StandbySlot struct {
	Slot sample.Slot `json:"slot"`
	// Sender is its walsender's row of the standby's pg_stat_replication
	// at that tick (nil: none then, the slot not in use).
	Sender *sample.Sender `json:"sender,omitempty"`
	// Walsender is that walsender's figures (its probes' wait events:
	// WalSenderWaitForWAL is waiting for replay to reach the WAL it
	// decodes next).
	Walsender Proc `json:"walsender"`
	// Invalidated says a tick of the window saw it invalidated (16's
	// conflicting, 17+'s invalidation_reason: Slot.Invalidation).
	Invalidated bool `json:"invalidated,omitempty"`
}

// standbySlots reads the standby node's logical slots and their
// walsenders, by slot name.
func standbySlots(rec *sample.Recording, ticks []sample.Tick) []StandbySlot {
	last := map[string]*StandbySlot{}
	var names []string
	roles := map[Backend]BackendRole{}
	for _, t := range ticks {
		sb := t.Read(sample.StandbyNode)
		if !sb.OK || sb.Standby == nil {
			continue
		}
		for _, sl := range sb.Standby.LogicalSlots {
			s, ok := last[sl.Name]
			if !ok {
				s = &StandbySlot{}
				last[sl.Name] = s
				names = append(names, sl.Name)
			}
			s.Slot, s.Sender = sl, nil
			s.Invalidated = s.Invalidated || sl.Invalidation != ""
			if sn, ok := sb.Sender(sl.ActivePID); ok && !sn.Physical {
				row := sn
				s.Sender = &row
				roles[Backend{string(sample.StandbyNode), sn.PID}] = BackendRole{Role: sample.RoleWalsender, Slot: sl.Name}
			}
		}
	}
	slices.Sort(names)
	var out []StandbySlot
	for _, n := range names {
		s := *last[n]
		own := map[Backend]BackendRole{}
		for b, r := range roles {
			if r.Slot == n {
				own[b] = r
			}
		}
		s.Walsender = procStats(rec, ticks, own, sample.RoleWalsender, string(sample.StandbyNode))
		out = append(out, s)
	}
	return out
}
