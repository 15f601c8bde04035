package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// cascade: a standby of the standby, behind the primary because of the
// first hop's link.
var cascade = Scenario{
	Recipe: lab.Recipe{Name: "cascade", Summary: "the publisher's physical standby streams through a 1 MB/s link and has a standby of its own (lab_cascade) streaming from it directly while the 16-client load runs: the cascade is as far behind the publisher as the first hop's link leaves the standby, and keeps up with the standby",
		Layout: lab.Flat,
		Steps:  []lab.Step{lab.WithStandby(lab.StandbyOptions{LinkRate: standbyLinkRate, Cascade: true}), lab.FullLoad},
		Drains: true},
	Physical: true,
	Expect: Expect{Verdict: model.Network,
		Check: func(r *lab.Result) []string {
			var p problems
			sr := standbyMeasured(&p, r)
			if sr == nil {
				return p
			}
			c := sr.Cascade
			if c == nil {
				p.add("no cascade measured")
				return p
			}
			if c.BehindPrimary < 4<<20 || c.BehindStandby > 2<<20 {
				p.add("the cascade is %d bytes behind the publisher and %d behind the standby; want the first hop's backlog (>= 4 MB) and the cascade keeping up with the standby (<= 2 MB)", c.BehindPrimary, c.BehindStandby)
			}
			if sr.GeneratedMBps < 2*standbyLinkRate/1e6 || sr.ReceivedMBps > 1.3*standbyLinkRate/1e6 || sr.ReceivedMBps < 0.5*standbyLinkRate/1e6 {
				p.add("generated %.2f MB/s, the standby received %.2f MB/s; want the first hop's link limiting (the standby receiving about its rate)", sr.GeneratedMBps, sr.ReceivedMBps)
			}
			if c.ReplayedMBps < 0.5*sr.ReceivedMBps {
				p.add("the cascade replayed %.2f MB/s of the %.2f MB/s the standby received; want it keeping up", c.ReplayedMBps, sr.ReceivedMBps)
			}
			checkStandbyData(&p, r)
			return p
		},
		Diagnosis: namesTheFirstHop},
}

// namesTheFirstHop: diagnose, given the publisher and the middle standby,
// lists the cascade (lab_cascade, read from the standby's own walsender)
// behind the publisher by at least the lab's first-hop backlog, and names
// the first hop, at the link, as the one that limits.
func namesTheFirstHop(d Diagnosed) []string {
	if d.Physical == nil {
		return []string{"no physical path judged"}
	}
	var p problems
	var c *model.Cascade
	for i := range d.Physical.Cascades {
		if d.Physical.Cascades[i].Standby == lab.CascadeApp {
			c = &d.Physical.Cascades[i]
		}
	}
	if c == nil {
		p.add("no cascade %s listed on the standby's path (%d cascades)", lab.CascadeApp, len(d.Physical.Cascades))
		return p
	}
	d.logf("%s", c.Text)
	behind, ok := c.BehindPrimary.Get()
	if !ok || behind < 4<<20 {
		p.add("the cascade is %v bytes behind the publisher; want the first hop's backlog (>= 4 MB)", c.BehindPrimary)
	}
	if c.LimitHop != 0 || len(c.Hops) != 2 || c.Hops[0].Limit != model.StageLink {
		p.add("limit hop %d of %d; want the first (publisher -> standby) at the link: %s", c.LimitHop, len(c.Hops), c.Text)
	}
	return p
}
