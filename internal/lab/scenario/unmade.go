package scenario

import "github.com/lagscope/lagscope/internal/model"

// Unmade lists the states recorded in internal/classify/testdata that no
// scenario makes: run by hand, from a fault matrix, or a scenario's
// recording that came out otherwise (a backlog drained within the
// window). Their recordings keep their truth here, so that expected.tsv is
// generated whole from this package.
var Unmade = []Expectation{
	{State: "network-tcp", Verdict: model.Network,
		How: "an 8 MB/s link over loopback TCP: the walsender ran 45% plus 17% run queue (softirq of the loopback send) and was blocked on the socket 41%, the apply worker waited for data 52% (the first-match tree called it inconclusive)"},
	{State: "mixed-both-starved", Verdict: model.Inconclusive,
		How: "CPU hogs on both hosts: the walsender and the apply worker both wait on the run queue"},
	{State: "mixed-apply-drained", Verdict: model.Inconclusive,
		How: "apply-bound whose backlog drained within the window (the path caught up while measured)"},
	{State: "frozen-link", Verdict: model.Stalled,
		How: "the replication link (the lab's unix-socket relay) frozen: no byte relayed, no connection closed, under a light load (fault matrix, cmd/lagscope)"},
	{State: "network-drained", Verdict: model.Network,
		How: "a 28 MB backlog through a 2 MB/s link drained within the window (median 15 MB): the walsender was blocked on the socket 84% of it (the byte threshold alone called it caught up)"},
}
