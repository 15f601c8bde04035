package scenario

import (
	"time"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// slotFilling: a disabled subscription's slot retains WAL toward
// max_slot_wal_keep_size.
var slotFilling = Scenario{
	Recipe: lab.Recipe{Name: "slot-filling", Summary: "the subscription stays disabled (its subscriber down) while a steady load (4 clients, 600 transactions/s) writes WAL, with max_slot_wal_keep_size = 192MB: the slot's retained WAL grows toward the limit, past which its WAL is no longer reserved and a checkpoint invalidates it",
		Layout: lab.Flat, PubSettings: map[string]string{"max_slot_wal_keep_size": "192MB"},
		Steps: []lab.Step{lab.SteadyLoad(4, 600, 20*time.Second)}},
	Expect:    Expect{Verdict: model.Stalled, Recorded: "the subscription stays disabled under a steady load of 600 transactions/s, max_slot_wal_keep_size = 192MB: the slot's retained WAL grows toward the limit"},
	Elsewhere: "TestIntegrationTheSlotForecastMeetsTheSlot (the slot forecast against the slot)",
}
