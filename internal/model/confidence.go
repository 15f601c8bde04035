package model

import "math"

// The confidences rules set by themselves, and the caps and factors that
// lower a confidence for what could not be seen. Each says why it is what
// it is; the margins set every other confidence (see confidence).
const (
	// confFact is a verdict named by a state the servers report (a
	// disabled subscription, a rising error count, a lost slot): nothing is
	// weighed against a threshold.
	confFact = 0.95
	// confFewProbes: under MinProbes wait-event probes, no share is
	// trusted; the verdict only says to sample longer.
	confFewProbes = 0.3
	// confDrained: the backlog drained while it was measured; "caught up"
	// and "it lags" are both half true.
	confDrained = 0.5
	// confNoStage: no stage stands out; the verdict says so, and little
	// more.
	confNoStage = 0.4
	// capBothStarved: both processes starved of CPU; naming either would
	// hide the other.
	capBothStarved = 0.6
	// capFrozenLink: a link that carries nothing is inferred from silence
	// (last_msg_receipt_time standing still): a subscriber stuck in a way
	// lagscope cannot see would be silent too.
	capFrozenLink = 0.9
	// confSyncFailed: sync_error_count rose; the copy is retried, and a
	// retry can succeed.
	confSyncFailed = 0.9
	// confSyncNameOnly: a tablesync slot judged from its name alone (no
	// --subscriber): a leftover slot looks the same.
	confSyncNameOnly = 0.6
	// confSyncLeftover: a tablesync slot with no copy under way: a copy
	// that starts between two reads looks the same for a moment.
	confSyncLeftover = 0.85
	// confSyncUnowned: a tablesync slot whose subscription was not read:
	// judged from the slot's name and state alone, as confSyncNameOnly.
	confSyncUnowned = 0.6
	// confCopyMoving, confCopyStill, confCopyUnseen: a COPY seen advancing
	// in pg_stat_progress_copy; not advancing (a lock, or a stuck link:
	// which is not seen); not seen, or at one tick only.
	confCopyMoving, confCopyStill, confCopyUnseen = 0.9, 0.6, 0.7
	// capConsumerUnseen: the consumer is not observed; one that buffers
	// and processes slowly looks like a slow network or a lazy confirmer.
	capConsumerUnseen = 0.8
	// capLinkNoBurst: a link named without publisher /proc and without
	// CPU bursts: a starved walsender shows the same stale wait event.
	capLinkNoBurst = 0.5
	// capIONoProc: I/O waits without /proc include the kernel's CPU time
	// for the reads (sub-cpu-io: 80% of probes in DataFileRead while the
	// worker ran 60% on a CPU).
	capIONoProc = 0.6
	// capOwnWaits: a walsender waiting on locks or LWLocks: the limit is
	// named, its cause is not.
	capOwnWaits = 0.6
	// capRoomPartly: the burst says the CPUs are busy but not clearly
	// saturated: CPU-bound and starved look alike.
	capRoomPartly = 0.55
	// unknownApply, unknownWalsender scale a CPU-bound verdict made
	// without /proc and without bursts (recordings before samples version
	// 4): an apply worker on CPU is more often its own limit than a
	// walsender, which a starved host leaves showing a stale event.
	unknownApply, unknownWalsender = 0.75, 0.6
	// missingProcFactor: /proc figures missing for a side: run-queue delay
	// (starvation) cannot be told from work there.
	missingProcFactor = 0.8
	// gapFactor: the sampling had gaps (a restart, a dropped connection):
	// part of the window is not seen. A gap longer than 15% of the window
	// lowers the confidence by the share seen instead.
	gapFactor = 0.85
	// capStalledAfterGap: a path interrupted by a restart looks stopped for
	// a while (the fault matrix's publisher restart: stalled at 0.81).
	capStalledAfterGap = 0.5
	// fewProbesFloor, enoughProbes: under enoughProbes walsender + apply
	// probes the confidence falls linearly to fewProbesFloor of itself.
	fewProbesFloor, enoughProbes = 0.7, 100
	// floorLargeTxn: a large transaction in flight is a fact the slot and
	// the sessions show, whatever the stage model's confidence.
	floorLargeTxn = 0.5
)

// margin is one condition of a rule that names a verdict: what it compares
// and its distance from its threshold on the side the rule took, in share
// points (or, for bytes and seconds, as a share of the threshold).
type margin struct {
	cond string
	by   float64
}

// Decision is the condition of the rule that named a verdict which sat
// nearest its threshold, with its margin: the confidence follows it. A
// verdict named by a fact (an error count, a stop, too few probes) has none.
type Decision struct {
	Condition string  `json:"condition"`
	Margin    float64 `json:"margin"`
}

// score is a confidence with the decision it follows.
type score struct {
	conf float64
	by   *Decision
}

// fixed is a confidence a rule sets by itself, not from a margin.
func fixed(c float64) score { return score{conf: c} }

// confidence turns the margins of a decision's conditions into a
// confidence: the smallest margin decides, 0.5 at the threshold, 0.95 at
// marginScale or more.
func confidence(ms ...margin) score {
	var by *Decision
	for _, x := range ms {
		if by == nil || x.by < by.Margin {
			by = &Decision{Condition: x.cond, Margin: x.by}
		}
	}
	m := 1.0
	if by != nil {
		m = math.Max(0, math.Min(1, by.Margin/marginScale))
	}
	return score{conf: 0.5 + 0.45*m, by: by}
}

// capped lowers the confidence to at most c; the decision stays.
func (s score) capped(c float64) score {
	s.conf = math.Min(s.conf, c)
	return s
}

// scaled multiplies the confidence by k; the decision stays.
func (s score) scaled(k float64) score {
	s.conf *= k
	return s
}

// lower combines two scores of one verdict: the lower confidence, and the
// decision with the smaller margin.
func (s score) lower(o score) score {
	out := score{conf: math.Min(s.conf, o.conf), by: s.by}
	if o.by != nil && (s.by == nil || o.by.Margin < s.by.Margin) {
		out.by = o.by
	}
	return out
}

// setScore gives v a score's confidence and decision.
func (v *Verdict) setScore(s score) {
	v.Confidence, v.Decided = s.conf, s.by
}
