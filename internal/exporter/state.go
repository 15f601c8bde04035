package exporter

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/lagscope/lagscope/internal/audit"
	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/monitor"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
)

// Stages are the label values of lagscope_bottleneck's stage: the path's
// stages in pipeline order, and "none" when no stage limits (caught up,
// stopped, or nothing stands out). Exactly one is 1 for a diagnosed path.
var Stages = []string{stageLabel(model.StageWalsender), stageLabel(model.StageLink),
	stageLabel(model.StageApply), stageLabel(model.StageParallel), stageLabel("")}

// Verdicts are the label values of lagscope_verdict: classify's verdict
// table, read at each scrape.
func Verdicts() []string {
	var out []string
	for _, n := range model.Names() {
		out = append(out, string(n))
	}
	return out
}

// stageLabel turns a model stage name into a label value.
func stageLabel(s model.StageName) string {
	if s == "" {
		return "none"
	}
	return strings.ReplaceAll(string(s), " ", "_")
}

// roleLabel turns a sample role into the label value of the per-process
// metrics' role: walsender, apply_leader (apart from parallel_apply),
// parallel_apply, tablesync.
func roleLabel(r string) string {
	if r == sample.RoleApply {
		return "apply_leader"
	}
	return strings.ReplaceAll(r, " ", "_")
}

// key is a counter's label values after the pair's name, as read from the
// servers (labelValue makes them label values when collected), joined by
// NUL: the one byte no PostgreSQL name or text holds. The first is the
// slot's key (slotKey) for every per-slot counter.
type key string

func keyOf(v ...string) key { return key(strings.Join(v, "\x00")) }

func (k key) values() []string { return strings.Split(string(k), "\x00") }

// slot is the key's first value: the slot of a per-slot counter.
func (k key) slot() string { s, _, _ := strings.Cut(string(k), "\x00"); return s }

// PruneAfterSteps is how many answered steps in a row a slot must be gone
// (listed neither by the publisher nor by a subscription) before its
// counters are dropped from the exposition. A few steps ride out a slot
// briefly missing from one read; dropping them at all keeps a pair that
// creates and drops slots (every tablesync slot of an initial sync, a
// subscription made and dropped again) from growing series without end.
// A slot that comes back starts its counters again from 0, which
// Prometheus's rate() reads as a counter reset.
const PruneAfterSteps = 3

// PairState is what the exporter knows of one pair: the latest step's
// results and counters summed over every step so far. It is pure: Apply
// folds an update in, nothing else changes it.
type PairState struct {
	Pair string
	// Up maps "publisher"/"subscriber" to whether the last step reached it.
	Up map[string]bool
	// Report is the last window's diagnosis (nil before the first).
	Report *report.Report
	// Window is the last window's samples (for the pids of PathPIDs).
	Window *sample.Recording
	// Updated is when the last step ended; Steps and Failed count them.
	Updated       time.Time
	Steps, Failed int
	// LastError is the last failed step's error, passwords removed.
	LastError string

	// Counters, keyed by their label values after pair:
	Generated float64         // bytes of WAL the publisher wrote
	Decoded   map[key]float64 // slot: bytes the walsender sent
	Confirmed map[key]float64 // slot: bytes the consumer confirmed
	CPU       map[key]float64 // slot, role: CPU seconds
	Runq      map[key]float64 // slot, role: run-queue seconds
	Waits     map[key]float64 // slot, role, type, event: probes
	// ReadErrors counts failed best-effort reads (server, source).
	ReadErrors map[key]float64
	// Seen maps a slot's key (slotKey) to the Answered step it was last
	// listed in; Answered counts the steps the publisher answered. Slot
	// counters of a key not seen for PruneAfterSteps answered steps are
	// dropped.
	Seen     map[string]int
	Answered int
	// Limits are the replication limits with what was in use, from the
	// setup as last read (see monitor.SetupEvery).
	Limits []audit.Limit

	setup json.RawMessage // the setup Limits were read from

	prev *sample.Tick // the last answered tick, to take deltas across steps
}

// NewPairState starts a pair's state with zero counters.
func NewPairState(pair string, subscriber bool) *PairState {
	up := map[string]bool{sample.Publisher: false}
	if subscriber {
		up[sample.Subscriber] = false
	}
	return &PairState{Pair: pair, Up: up, Decoded: map[key]float64{}, Confirmed: map[key]float64{},
		CPU: map[key]float64{}, Runq: map[key]float64{}, Waits: map[key]float64{}, ReadErrors: map[key]float64{},
		Seen: map[string]int{}}
}

// NewPhysicalPairState starts the state of a physical standby's path: its
// servers are the primary and/or the standby.
func NewPhysicalPairState(pair string, primary, standby bool) *PairState {
	s := NewPairState(pair, false)
	s.Up = map[string]bool{}
	if primary {
		s.Up[string(sample.PrimaryNode)] = false
	}
	if standby {
		s.Up[string(sample.StandbyNode)] = false
	}
	return s
}

// Apply folds one step into the state.
func (s *PairState) Apply(u monitor.Update) {
	s.Updated = u.At
	s.Steps++
	for side := range s.Up {
		_, down := u.Down[side]
		// A failed step says nothing of the sides it did not reach (the
		// subscriber is not tried once the publisher refuses).
		if down || u.Err == nil {
			s.Up[side] = !down
		}
	}
	if u.Err != nil {
		s.Failed++
		s.LastError = u.Err.Error()
		s.prev = nil
		return
	}
	s.Report, s.Window = u.Report, u.Window
	s.readLimits(u.Window.Setup)
	s.count(u.Step)
	s.prune(u.Step)
}

// prune marks the slots the step listed as seen and drops the counters of
// slots gone for PruneAfterSteps answered steps. A step the publisher did
// not answer says nothing of its slots: it neither marks nor drops.
func (s *PairState) prune(rec *sample.Recording) {
	answered := false
	for _, t := range rec.Ticks {
		if pub := t.Read(sample.PublisherNode); pub.OK {
			answered = true
			for _, sl := range pub.Slots {
				s.Seen[slotKey(sl.Name)] = s.Answered + 1
			}
		}
		if sub := t.Read(sample.SubscriberNode); sub.OK {
			for _, sb := range sub.Subs {
				if sb.Slot != "" {
					s.Seen[slotKey(sb.Slot)] = s.Answered + 1
				}
			}
		}
	}
	if !answered {
		return
	}
	s.Answered++
	for k, at := range s.Seen {
		if s.Answered-at >= PruneAfterSteps {
			delete(s.Seen, k)
		}
	}
	for _, m := range []map[key]float64{s.Decoded, s.Confirmed, s.CPU, s.Runq, s.Waits} {
		for k := range m {
			if _, ok := s.Seen[k.slot()]; !ok {
				delete(m, k)
			}
		}
	}
}

// readLimits reads the limits from a setup that differs from the last one
// (nil when the setup could not be read: a limit not read is not exported).
func (s *PairState) readLimits(setup json.RawMessage) {
	if bytes.Equal(setup, s.setup) {
		return
	}
	s.setup, s.Limits = setup, nil
	var snaps audit.Snapshots
	if len(setup) > 0 && json.Unmarshal(setup, &snaps) == nil {
		s.Limits = audit.Limits(snaps)
	}
}

// count adds a step's increments to the counters: deltas between answered
// ticks (the first against the previous step's last), and every probe.
func (s *PairState) count(rec *sample.Recording) {
	roles := measure.Roles(rec.Ticks, measure.Filter{})
	for i := range rec.Ticks {
		t := &rec.Ticks[i]
		for _, e := range t.ReadErrors {
			s.ReadErrors[keyOf(e.Side, e.Source)]++
		}
		if !t.Read(sample.PublisherNode).OK {
			continue
		}
		if s.prev != nil {
			s.delta(s.prev, t, roles)
		}
		s.prev = t
	}
	for _, p := range rec.Probes {
		if p.At.Before(rec.Start) {
			continue // pg_wait_sampling's history from before the step
		}
		for _, w := range p.Waits {
			r, ok := roles[measure.Backend{Side: p.Side, PID: w.PID}]
			if !ok {
				continue
			}
			typ, ev := w.Type, w.Event
			if ev == "" {
				typ, ev = measure.CPUEvent, measure.CPUEvent
			}
			s.Waits[keyOf(slotKey(r.Slot), roleLabel(r.Role), typ, ev)]++
		}
	}
}

// delta adds what moved between two answered ticks.
func (s *PairState) delta(a, b *sample.Tick, roles map[measure.Backend]measure.BackendRole) {
	s.Generated += sample.Advance(b.Read(sample.PublisherNode).CurrentLSN, a.Read(sample.PublisherNode).CurrentLSN)
	for _, sb := range b.Read(sample.PublisherNode).Slots {
		sa, ok := a.Read(sample.PublisherNode).Slot(sb.Name)
		if !ok {
			continue
		}
		s.Confirmed[keyOf(slotKey(sb.Name))] += sample.Advance(sb.ConfirmedFlush, sa.ConfirmedFlush)
		if sb.ActivePID != 0 && sb.ActivePID == sa.ActivePID {
			s.Decoded[keyOf(slotKey(sb.Name))] += sample.Advance(b.Read(sample.PublisherNode).SentBy(sb.ActivePID), a.Read(sample.PublisherNode).SentBy(sb.ActivePID))
		}
	}
	for _, pb := range b.Procs {
		r, ok := roles[measure.Backend{Side: pb.Side, PID: pb.PID}]
		if !ok {
			continue
		}
		for _, pa := range a.Procs {
			if pa.Side == pb.Side && pa.PID == pb.PID {
				k := keyOf(slotKey(r.Slot), roleLabel(r.Role))
				s.CPU[k] += max(0, float64(pb.CPUNs-pa.CPUNs)) / 1e9
				s.Runq[k] += max(0, float64(pb.RunqNs-pa.RunqNs)) / 1e9
			}
		}
	}
}

// PathPIDs returns the walsender and apply leader pids of slot at the
// last tick of the window ("" when there is none).
func PathPIDs(window *sample.Recording, slot string) (walsender, apply string) {
	if window == nil {
		return "", ""
	}
	for i := len(window.Ticks) - 1; i >= 0; i-- {
		t := window.Ticks[i]
		if !t.Read(sample.PublisherNode).OK {
			continue
		}
		if sl, ok := t.Read(sample.PublisherNode).Slot(slot); ok && sl.ActivePID != 0 {
			walsender = strconv.Itoa(sl.ActivePID)
		}
		for _, sb := range t.Read(sample.SubscriberNode).Subs {
			if sb.Slot == slot && sb.WorkerPID != 0 {
				apply = strconv.Itoa(sb.WorkerPID)
			}
		}
		return walsender, apply
	}
	return "", ""
}

// sortedKinds returns m's keys in order.
func sortedKinds(m map[string]int64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// sortedKeys returns m's keys in order, for a stable exposition.
func sortedKeys(m map[key]float64) []key {
	out := make([]key, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
