package audit

import "fmt"

// CheckSlotWALKeepSize is the ID of slotWALKeepSize: its page is docs/checks/slot-wal-keep-size.md.
const CheckSlotWALKeepSize CheckID = "slot-wal-keep-size"

// slotWALKeepSize: nothing bounds the WAL a stalled slot keeps.
var slotWALKeepSize = Check{
	ID:       CheckSlotWALKeepSize,
	Title:    "max_slot_wal_keep_size bounds the WAL slots retain",
	Severity: Warning,
	Side:     PublisherSide,
	Needs:    []Section{PubSettings, PubSlots},
	Run: func(s Snapshots) []Finding {
		p := s.Publisher
		keep, ok := p.Settings.Int("max_slot_wal_keep_size")
		if !ok || keep >= 0 {
			return nil
		}
		var n, worst int64
		for _, sl := range p.Slots {
			if sl.Temporary {
				continue
			}
			n++
			if r := sl.Retained(p.CurrentLSN); r > worst {
				worst = r
			}
		}
		if n == 0 {
			return nil
		}
		fix := "Set max_slot_wal_keep_size on the publisher to what its WAL disk can hold beside its other WAL, then reload " +
			"it (lagscope cannot see the disk, so it prints no value)."
		if p.Version.Major >= 18 {
			fix += " On 18 idle_replication_slot_timeout also invalidates slots idle for too long."
		}
		return []Finding{{
			Objects: []string{"setting max_slot_wal_keep_size"},
			Found:   fmt.Sprintf("max_slot_wal_keep_size = -1 (unlimited) with %s; the most WAL one retains is %s.", plural(n, "slot"), byteSize(worst)),
			Why: "Nothing bounds the WAL a stalled or abandoned slot keeps: the publisher's disk fills and it stops accepting " +
				"writes. A limit invalidates the slot instead (its subscriber must then be resynchronised), which is usually " +
				"the lesser harm.",
			Fix: fix,
		}}
	},
}
