package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// slowConsumer: a client consumer reads the slot slowly; the walsender
// waits to write.
var slowConsumer = Scenario{
	Recipe: lab.Recipe{Name: "slow-consumer", Summary: "backlog, publisher idle; a client consumer (lab-consumer, not a subscription) reads slot lab_consumer at 2 MB/s: the walsender waits to write, diagnosed from the publisher only",
		Layout: lab.Flat, Consumer: lab.ConsumerSlow,
		// ~65 MB: 30 s or more at the consumer's 2 MB/s, so the backlog
		// outlasts the window with a margin (with ~25 MB, 2 runs of 3 on
		// 16.14 read it down to 10-14 MB within the window: caught up).
		Steps:      []lab.Step{lab.UseConsumerSlot, lab.Backlog(0.8), lab.Consume(lab.ConsumerSlow)},
		UntilBelow: lab.DrainedMB},
	Expect: Expect{Verdict: model.NetworkOrConsumer, Recorded: "publisher only: a client consumer (lab-consumer, pglogrepl, not a subscription) reads a backlog from slot lab_consumer at 2 MB/s: the walsender waits to write",
		Check: func(r *lab.Result) []string {
			var p problems
			if top, share := r.Walsender.Top(); top != "WalSenderWriteData" {
				p.add("walsender mostly %s (%.0f%%), want WalSenderWriteData", top, 100*share)
			}
			return p
		}},
}
