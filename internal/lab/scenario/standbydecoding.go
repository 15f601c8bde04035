package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// standbyDecoding: a logical slot on the standby (16+) decoded while the
// standby's replay is paused: its walsender waits for WAL replay has not
// reached.
var standbyDecoding = Scenario{
	Recipe: lab.Recipe{Name: "standby-decoding", Summary: "a logical slot on the publisher's physical standby (16+, test_decoding) is streamed by a replication connection while the standby's replay is paused and the 16-client load runs: the walsender on the standby waits for WAL replay has not reached, and the standby's replay is the limit of the logical path",
		Layout:   lab.Flat,
		MinMajor: 16, Needs: "logical decoding on a standby",
		Steps:  []lab.Step{lab.WithStandby(lab.StandbyOptions{}), lab.DecodeOnStandby, lab.PauseReplay, lab.FullLoad},
		Drains: true},
	Physical: true,
	Expect: Expect{Verdict: model.ReplayPaused,
		Check: func(r *lab.Result) []string {
			var p problems
			sr := standbyMeasured(&p, r)
			if sr == nil {
				return p
			}
			if sr.PausedShare < 1 || sr.ReplayedMBps > 0 {
				p.add("paused in %.0f%% of ticks, replayed %.2f MB/s; want 100%% and nothing", 100*sr.PausedShare, sr.ReplayedMBps)
			}
			// The backlog grows; the receiver's rate is not checked: on
			// 18.4 one run of 4 received 2.0 of 11.3 MB/s generated (the
			// primary's walsender blocked on the socket of the lab's
			// proxy), the 3 others 13.7/13.7, 15.2/15.2, 18.1/17.2:
			// not this scenario's subject.
			if sr.GeneratedMBps <= 0.5 || sr.ReplayBacklogEnd <= sr.ReplayBacklogStart || sr.ReplayBacklogEnd < 4<<20 {
				p.add("replay backlog %d -> %d bytes at %.2f MB/s generated; want a backlog growing under load", sr.ReplayBacklogStart, sr.ReplayBacklogEnd, sr.GeneratedMBps)
			}
			checkStandbyData(&p, r)
			return p
		},
		Diagnosis: namesReplayForDecoding},
}

// namesReplayForDecoding: the standby's path lists the slot on the
// standby, its walsender waiting for WAL, and names the standby's replay
// as the limit of its decoding.
func namesReplayForDecoding(d Diagnosed) []string {
	if d.Physical == nil {
		return []string{"no physical path judged"}
	}
	for _, s := range d.Physical.Decoding {
		if s.Slot != lab.StandbyDecodingSlot {
			continue
		}
		d.logf("%s", s.Text)
		if s.Limit != model.StageReplay {
			return []string{"the slot on the standby: " + s.Text + "; want the standby's replay named as its limit"}
		}
		return nil
	}
	return []string{"the slot " + lab.StandbyDecodingSlot + " on the standby is not listed"}
}
