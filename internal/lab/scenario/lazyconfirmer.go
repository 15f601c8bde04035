package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// lazyConfirmer: a client consumer reads at once but confirms rarely.
var lazyConfirmer = Scenario{
	Recipe: lab.Recipe{Name: "lazy-confirmer", Summary: "backlog, then a light load; a client consumer (lab-consumer) reads slot lab_consumer at once but confirms only every 5 minutes: everything is sent, little confirmed",
		Layout: lab.Flat, Consumer: lab.ConsumerLazy, Steps: []lab.Step{lab.UseConsumerSlot, lab.Backlog(0.3), lab.LightLoad, lab.Consume(lab.ConsumerLazy)}},
	Expect: Expect{Verdict: model.ConfirmationLag, Recorded: "publisher only: a client consumer reads a backlog at once and reports its write position every second, but confirms (flush) only every 5 minutes, under a light load",
		Check: func(r *lab.Result) []string {
			var p problems
			if share := r.Walsender.Share("WalSenderWaitForWAL"); share < 0.5 || r.Lag.Total < 16<<20 {
				p.add("walsender waited for WAL in %.0f%% of probes with %d bytes unconfirmed: want most, and 16 MB+", 100*share, r.Lag.Total)
			}
			return p
		}},
}
