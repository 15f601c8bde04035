package model

import (
	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/topology"
)

// Input is everything the classifier looks at for one path (a slot, its
// walsender, and the subscription that consumes it). The figures are
// measure.Path's (see it for their units and zero values); the classifier
// reads no tick itself.
type Input struct {
	Slot         string
	Subscription string // "" when no subscription on the observed subscriber uses the slot
	// Rivals are the other subscriptions that name the slot as well: the
	// path is judged on Subscription, the active one (measure.Path.Rivals).
	Rivals  []string
	Summary measure.Summary
	// HasSubscriber says whether a subscriber was observed at all.
	HasSubscriber bool
	// State at the end of the window.
	SlotFound, SlotActive bool
	WALStatus             string
	Invalidation          string // the slot's invalidation reason ("" = valid or unknown)
	SubEnabled            bool
	ApplyWorker           bool // a leader apply worker runs
	ApplyErrors           int64
	SyncErrors            int64
	// ApplyErrorCount is the subscription's apply_error_count at the
	// window's end, since its counters were reset (15+; 0 before, or
	// none); Conflicts are its conflict counters then, by kind (18+; nil
	// before).
	ApplyErrorCount int64
	Conflicts       map[string]int64
	WorkerChanges   int
	SpillBytes      int64
	// Proc says for which roles' nodes /proc figures exist (ProcOf).
	Proc      map[topology.Role]bool
	MedianLag int64
	// Gaps counts sampling gaps (restarts, dropped connections).
	Gaps int
	// Unseen is the largest share of the window that one side's gaps
	// left unsampled (0-1).
	Unseen float64
	// NotReady is the number of the subscription's tables not yet
	// synchronised at the window's end.
	NotReady int
	// Sync is the table a tablesync slot copies (nil for any other slot).
	Sync      *measure.Tablesync
	FlushLagS float64
	Blockers  []Blocker
	// Txn is a large transaction in flight on the path (nil = none seen).
	Txn           *LargeTxn
	SubWALPerSent float64
	Reported      *measure.Reported
	SilentS       float64
	// Calibration is the lab profile the predictions rest on (the zero
	// value: DefaultCalibration).
	Calibration Calibration
}

// calibration is the profile in names, or the default one.
func (in Input) calibration() Calibration { return in.Calibration.orDefault() }

// Inputs builds one Input per logical slot in the recording (restricted to
// slots when not empty), from the facts measure.Paths derives.
func Inputs(rec *sample.Recording, slots []string) []Input {
	var out []Input
	for _, p := range measure.Paths(rec, slots) {
		out = append(out, inputOf(rec, p))
	}
	return out
}

// procByRole says, for the role of each of rec's nodes, whether /proc
// figures exist for it.
func procByRole(rec *sample.Recording) map[topology.Role]bool {
	out := map[topology.Role]bool{}
	for _, n := range rec.Nodes {
		out[n.Role] = n.ProcUnavailable == ""
	}
	return out
}

// ProcOf says whether /proc figures exist for the node of role r (false
// when none was observed).
func (in Input) ProcOf(r topology.Role) bool { return in.Proc[r] }

// inputOf is the classifier's view of one path's facts.
func inputOf(rec *sample.Recording, p measure.Path) Input {
	in := Input{Slot: p.Slot, Summary: p.Summary, HasSubscriber: rec.Server(sample.SubscriberNode) != nil,
		Proc: procByRole(rec),
		Gaps: len(rec.Gaps), Unseen: unseen(rec), Sync: p.Tablesync,
		ApplyErrors: p.ApplyErrors, SyncErrors: p.SyncErrors, WorkerChanges: p.WorkerChanges, SpillBytes: p.SpillBytes,
		MedianLag: p.MedianLag, FlushLagS: p.FlushLagS, SubWALPerSent: p.SubWALPerSent, Reported: p.Reported, SilentS: p.SilentS,
		Calibration: DefaultCalibration}
	if l := p.Last; l != nil {
		in.SlotFound, in.SlotActive, in.WALStatus, in.Invalidation = true, l.Active, l.WALStatus, l.Invalidation
	}
	if s := p.Sub; s != nil {
		in.Subscription, in.SubEnabled, in.ApplyWorker, in.NotReady = s.Name, s.Enabled, s.WorkerPID != 0, s.NotReady
		in.ApplyErrorCount, in.Conflicts = s.ApplyErrors, s.Conflicts
	}
	in.Rivals = p.Rivals
	in.Blockers = make([]Blocker, len(p.Blockers))
	for i, b := range p.Blockers {
		in.Blockers[i] = Blocker{b}
	}
	in.Txn = largeTxn(p.First, p.Last, p.Summary.WindowS, p.Summary.Walsender.Share(evWaitForWAL) >= MostProbes)
	return in
}

// unseen is the largest share of the recording's window that one side's
// gaps cover.
func unseen(rec *sample.Recording) float64 {
	win := rec.End.Sub(rec.Start).Seconds()
	if win <= 0 {
		return 0
	}
	by := map[string]float64{}
	most := 0.0
	for _, g := range rec.Gaps {
		from, to := g.From, g.To
		if from.Before(rec.Start) {
			from = rec.Start
		}
		if to.After(rec.End) {
			to = rec.End
		}
		if to.After(from) {
			by[g.Side] += to.Sub(from).Seconds()
			most = max(most, by[g.Side])
		}
	}
	return min(most/win, 1)
}
