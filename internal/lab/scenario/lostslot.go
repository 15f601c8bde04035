package scenario

import (
	"strings"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/sample"
)

// lostSlot: the slot lost its WAL; the subscription cannot stream.
var lostSlot = Scenario{
	Recipe: lab.Recipe{Name: "lost-slot", Summary: "a backlog larger than max_slot_wal_keep_size (32MB) and a checkpoint while the subscription is disabled: the slot is lost; the enabled subscription cannot stream",
		Layout: lab.Flat, PubSettings: map[string]string{"max_slot_wal_keep_size": lab.LostSlotKeep},
		Steps:      []lab.Step{lab.Backlog(1.6), lab.LoseSlots, lab.EnableNoWait},
		UntilBelow: lab.DrainedMB},
	Expect: Expect{Verdict: model.Stalled, EveryVersion: "17+ says why a slot was invalidated (invalidation_reason), 15-16 only that its WAL is lost (wal_status): the cause differs", Recorded: "max_slot_wal_keep_size = 32MB under a ~450 MB backlog and a checkpoint while the subscription was disabled: the slot is lost (18: invalidation_reason wal_removed); the subscription is enabled and cannot stream",
		Check: func(r *lab.Result) []string {
			var p problems
			lost := ticksWhere(r, func(tk sample.Tick) bool {
				return len(tk.Read(sample.PublisherNode).Slots) > 0 && tk.Read(sample.PublisherNode).Slots[0].WALStatus == "lost"
			})
			if lost < 3 {
				p.add("the slot was lost at %d ticks, want >= 3", lost)
			}
			return p
		},
		Diagnosis: func(d Diagnosed) []string {
			var p problems
			if !strings.Contains(d.Path.Cause, "invalidated") && !strings.Contains(d.Path.Cause, "lost") {
				p.add("cause %q, want the lost slot named", d.Path.Cause)
			}
			return p
		}},
}
