package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
)

// standbyMeasured returns the lab's measurement of the standby, or adds a
// problem when the run made none.
func standbyMeasured(p *problems, r *lab.Result) *lab.StandbyResult {
	if r.Standby == nil {
		p.add("no measurement of the standby: the run made no physical standby")
	}
	return r.Standby
}

// checkReplayBehindAndGrowing wants replay behind and its backlog grown
// over the window while the standby received what the publisher wrote.
func checkReplayBehindAndGrowing(p *problems, sr *lab.StandbyResult) {
	if sr.GeneratedMBps <= 0.5 || sr.ReplayBacklogEnd <= sr.ReplayBacklogStart || sr.ReplayBacklogEnd < 4<<20 {
		p.add("replay backlog %d -> %d bytes at %.2f MB/s generated; want a backlog growing under load", sr.ReplayBacklogStart, sr.ReplayBacklogEnd, sr.GeneratedMBps)
	}
	if sr.ReceivedMBps < 0.8*sr.GeneratedMBps {
		p.add("received %.2f MB/s of %.2f MB/s generated; want the receiver keeping up", sr.ReceivedMBps, sr.GeneratedMBps)
	}
}

// checkStandbyData wants the standby to hold the publisher's data once
// released.
func checkStandbyData(p *problems, r *lab.Result) {
	if r.DataMatches != nil && !*r.DataMatches {
		p.add("data mismatch after the catch-up: %s", r.DataDetail)
	}
}

// checkCaughtUpOnce wants every timed catch-up to have reached its target.
func checkCaughtUpOnce(p *problems, sr *lab.StandbyResult, minSeconds float64) {
	if len(sr.CatchUps) == 0 {
		p.add("no catch-up timed")
	}
	for i, c := range sr.CatchUps {
		// Under a load that keeps running, the standby is behind until it
		// comes within reach of the moving position, not only until it
		// replays what was there at the release.
		took := c.BehindS()
		if c.TimedOut || took < minSeconds {
			p.add("catch-up %d: %.1f s (timed out %t) for %d bytes; want one that takes %.0f s or more", i+1, took, c.TimedOut, c.BacklogBytes, minSeconds)
		}
	}
}
