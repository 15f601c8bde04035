package audit

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/pgversion"
)

// CheckStandbySlotUnbounded is the ID of standbySlotUnbounded: its page is docs/checks/standby-slot-unbounded.md.
const CheckStandbySlotUnbounded CheckID = "standby-slot-unbounded"

// standbySlotUnbounded: a physical slot on the primary while
// max_slot_wal_keep_size = -1 keeps WAL without bound once its standby
// stops reading.
var standbySlotUnbounded = Check{
	ID:       CheckStandbySlotUnbounded,
	Title:    "the primary bounds the WAL a standby's physical slot retains",
	Severity: Warning,
	Side:     StandbySide,
	Needs:    []Section{PrimarySettings, PrimarySlots},
	Applies:  standbyApplies,
	Run: func(s Snapshots) []Finding {
		p := s.Primary
		if keep, ok := p.Settings.Int("max_slot_wal_keep_size"); !ok || keep >= 0 {
			return nil
		}
		mine := s.Standby.SlotName()
		var worst int64
		for _, sl := range p.Slots {
			worst = max(worst, sl.Retained(p.CurrentLSN))
		}
		// A bound that invalidates no slot now: twice the most WAL one
		// retains, at least max_wal_size, in whole GB.
		maxWAL, _ := p.Settings.Bytes("max_wal_size")
		bound := max(2*worst, maxWAL, 1<<30)
		bound = (bound + 1<<30 - 1) / (1 << 30) * (1 << 30)
		var out []Finding
		for _, sl := range p.Slots {
			if sl.Type != "physical" || sl.Temporary {
				continue
			}
			whose := "a physical slot of the primary (another standby's, or nobody's)"
			if sl.Name == mine {
				whose = "the physical slot this standby streams from"
			}
			state := "active"
			if !sl.Active {
				state = "inactive: no standby streams from it now"
			}
			fix := fmt.Sprintf("Set max_slot_wal_keep_size on the primary to what its WAL disk can hold beside max_wal_size, and reload it. "+
				"lagscope cannot see the disk: the value printed, %s, invalidates no slot now (twice the most WAL a slot retains, at least max_wal_size); "+
				"it bounds every slot of the primary, logical ones too.", showBytes(bound))
			if pgversion.IdleSlotTimeout.On(p.Version.Major) {
				fix += " On 18, idle_replication_slot_timeout also invalidates slots idle for too long."
			}
			run := alterSystem(onPrimary, "max_slot_wal_keep_size", showBytes(bound), false)
			run[0] = run[0].WithNote("a slot that falls further behind is invalidated: its standby must then be rebuilt or fed from the archive")
			out = append(out, Finding{
				Objects: []string{"slot " + id(sl.Name) + " (primary)", "setting max_slot_wal_keep_size (primary)"},
				Found: fmt.Sprintf("Slot %s is %s, %s; it retains %s of WAL, and max_slot_wal_keep_size = -1 (unlimited) on the primary.",
					id(sl.Name), whose, state, byteSize(sl.Retained(p.CurrentLSN))),
				Why: "If the standby stops reading (stopped, cut off, or slower than the primary for long), the slot keeps every WAL " +
					"file from its restart_lsn on: the primary's WAL disk fills and the primary stops accepting writes. A bound " +
					"invalidates the slot instead, the lesser harm.",
				Fix: fix,
				Run: run,
			})
		}
		return out
	},
}
