package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// slotIdle: a disabled subscription's slot is invalidated once it has been
// idle idle_replication_slot_timeout (18+).
var slotIdle = Scenario{
	Recipe: lab.Recipe{Name: "slot-idle", Summary: "the subscription stays disabled (its subscriber down) under a light load, with idle_replication_slot_timeout = 45s and checkpoint_timeout = 30s (PostgreSQL 18+): the slot stays inactive, and the first checkpoint after it has been inactive 45 s invalidates it (idle_timeout)",
		Layout: lab.Flat, MinMajor: 18, Needs: "idle_replication_slot_timeout",
		PubSettings: map[string]string{"idle_replication_slot_timeout": "45s", "checkpoint_timeout": "30s"},
		Steps:       []lab.Step{lab.LightLoad}},
	Expect:    Expect{Verdict: model.Stalled},
	Elsewhere: "TestIntegrationTheIdleTimeoutForecastMeetsTheSlot (the idle timeout's forecast against the slot)",
}
