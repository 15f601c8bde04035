package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/units"
)

// network: the rate-limited link is the limit.
var network = Scenario{
	Recipe: lab.Recipe{Name: "network", Summary: "flat table, backlog, publisher idle, subscription through a rate-limited link (--rate)",
		Layout: lab.Flat, Link: true, Steps: []lab.Step{lab.Backlog(0.6), lab.Enable},
		UntilBelow: lab.DrainedMB, Drains: true},
	Expect: networkExpect("backlog through the lab's rate-limited link at 4 MB/s, publisher idle", 0, ""),
	Variants: []Variant{
		// 8 MB/s (the lab's default): the walsender already uses ~35% of a
		// core here, a less clean signature than at 4 MB/s.
		{Label: "network-8mbps", Expect: networkExpect("backlog through the lab's rate-limited link at 8 MB/s (seed 000's rate), publisher idle: the apply worker is busier (next limit)", 8_000_000,
			// At 8 MB/s the walsender itself needs half a core here (a send
			// per change), so on a busy host the user-space link is not
			// quite the only limit: a fresh-clone run on 15.18 measured the
			// link at 7.41 MB/s (-7.3%) with the walsender on a CPU in 61%
			// of its probes (the verdict was still network, 0.56). The 4
			// MB/s case stays in CI; the 8 MB/s one comes back when the link
			// is shaped in the kernel (issue 13).
			"the lab does not make its state reliably on 2 shared vCPUs")},
	},
}

// networkExpect is what the network state shows at a link of rate (0: the
// integration test's 4 MB/s).
func networkExpect(recorded string, rate units.ByteRate, byHand string) Expect {
	return Expect{Verdict: model.Network, Recorded: recorded, LinkRate: rate, ExactWithoutProc: true, ByHand: byHand,
		Check: checkNetwork, Diagnosis: diagnosedNetwork}
}

func checkNetwork(r *lab.Result) []string {
	var p problems
	if r.Link == nil {
		p.add("no link measurement")
		return p
	}
	if r.Link.Error < -0.05 || r.Link.Error > 0.05 {
		p.add("link measured %.2f MB/s for %.2f MB/s configured (%+.1f%%), want within 5%%", r.Link.MeasuredMBps, r.Link.ConfiguredMBps, 100*r.Link.Error)
	}
	if top, share := r.Walsender.Top(); top != "WalSenderWriteData" {
		p.add("walsender mostly %s (%.0f%%), want WalSenderWriteData", top, 100*share)
	}
	checkData(&p, r)
	return p
}

// diagnosedNetwork wants the link named as the limit with room behind it.
// Behind the link the walsender and the apply worker are about as busy:
// which one is next is a coin toss (fresh-clone runs on 15.18: at 8 MB/s
// the walsender at 52% beside the apply worker's 38%; at 4 MB/s both at
// 24%, the walsender named).
func diagnosedNetwork(d Diagnosed) []string {
	var p problems
	if d.Path.Limit != model.StageLink || d.Path.Next == nil || d.Path.Next.Headroom <= 1 {
		p.add("limit %q next %+v, want the link with a next limit at a headroom above 1x", d.Path.Limit, d.Path.Next)
	}
	return p
}
