package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// standbyLinkRate is standby-link's link: under the load's WAL rate.
const standbyLinkRate = 1_000_000

// standbyLink: the standby receives WAL through a link slower than the
// publisher writes it.
var standbyLink = Scenario{
	Recipe: lab.Recipe{Name: "standby-link", Summary: "the publisher's physical standby streams through a 1 MB/s link while the 16-client load writes several MB/s of WAL: the standby receives at the link's rate and replays all it receives",
		Layout: lab.Flat,
		Steps:  []lab.Step{lab.WithStandby(lab.StandbyOptions{LinkRate: standbyLinkRate}), lab.FullLoad},
		Drains: true},
	Physical: true,
	Expect: Expect{Verdict: model.Network,
		Check: func(r *lab.Result) []string {
			var p problems
			sr := standbyMeasured(&p, r)
			if sr == nil {
				return p
			}
			if sr.Link == nil || sr.Link.MeasuredMBps < 0.8*sr.Link.ConfiguredMBps || sr.Link.MeasuredMBps > 1.2*sr.Link.ConfiguredMBps {
				p.add("the standby's link carried %+v; want within 20%% of its rate", sr.Link)
			}
			if sr.GeneratedMBps < 2*standbyLinkRate/1e6 || sr.ReceivedMBps > 1.3*standbyLinkRate/1e6 {
				p.add("generated %.2f MB/s, received %.2f MB/s; want twice the link's %.1f MB/s generated and no more than it received", sr.GeneratedMBps, sr.ReceivedMBps, standbyLinkRate/1e6)
			}
			if behind := sr.ReplayBacklogEnd - sr.ReceiveBacklogEnd; behind > 4<<20 {
				p.add("%d bytes received but not replayed at the end; want replay keeping up with what arrives", behind)
			}
			checkStandbyData(&p, r)
			return p
		}},
}
