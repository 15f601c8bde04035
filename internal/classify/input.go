package classify

import (
	"sort"
	"time"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/median"
	"github.com/lagscope/lagscope/internal/sample"
)

// Input is everything the classifier looks at for one path (a slot, its
// walsender, and the subscription that consumes it).
type Input struct {
	Slot         string
	Subscription string // "" when no subscription on the observed subscriber uses the slot
	Summary      measure.Summary
	// HasSubscriber says whether a subscriber was observed at all.
	HasSubscriber bool
	// State at the end of the window.
	SlotFound, SlotActive bool
	WALStatus             string
	Invalidation          string // the slot's invalidation reason ("" = valid or unknown)
	SubEnabled            bool
	ApplyWorker           bool  // a leader apply worker runs
	ApplyErrors           int64 // apply_error_count increase over the window
	SyncErrors            int64 // sync_error_count increase over the window
	WorkerChanges         int   // times the apply worker's pid changed or vanished
	SpillBytes            int64 // spill_bytes increase over the window
	// ProcPub and ProcSub say whether /proc figures exist for each side.
	ProcPub, ProcSub bool
	// MedianLag is the median of total unconfirmed WAL over the ticks, bytes.
	MedianLag int64
	// Gaps counts sampling gaps (restarts, dropped connections).
	Gaps int
	// NotReady is the number of the subscription's tables not yet
	// synchronised at the window's end.
	NotReady int
	// Sync is set when the slot is a tablesync worker's
	// (pg_<suboid>_sync_<relid>_<sysid>) and the subscriber is observed.
	Sync *Sync
	// FlushLagS is the walsender's flush_lag at the last tick that had one,
	// seconds; -1 when never reported.
	FlushLagS float64
	// Blockers are the sessions that held locks the subscription's workers
	// waited for, most often seen first.
	Blockers []Blocker
	// Txn is a large transaction in flight on the path (nil = none seen).
	Txn *LargeTxn
	// SubWALPerSent is the WAL the subscriber wrote per byte of WAL the
	// walsender sent over the window (0 = unknown: no subscriber position,
	// or under SubWALMinSent sent). What applying costs in writes: indexes
	// the publisher lacks, triggers and full-page images raise it.
	SubWALPerSent float64
	// Reported is what the consumer last reported to the walsender (nil
	// without a walsender at the window's end).
	Reported *Reported
	// SilentS is how long the apply worker was seen receiving nothing
	// (its last_msg_receipt_time stood still from the first tick to the
	// last, one worker throughout), seconds; 0 when it received anything.
	SilentS float64
}

// Reported is how far the positions a consumer reports (pg_stat_replication
// write_lsn, flush_lsn) trail the walsender's sent_lsn, bytes.
type Reported struct {
	WriteBehind, FlushBehind int64
}

// Inputs builds one Input per logical slot in the recording (restricted to
// slots when not empty).
func Inputs(rec *sample.Recording, slots []string) []Input {
	want := map[string]bool{}
	for _, s := range slots {
		want[s] = true
	}
	var names []string
	seen := map[string]bool{}
	for _, t := range rec.Ticks {
		for _, sl := range t.Slots {
			if !seen[sl.Name] && (len(want) == 0 || want[sl.Name]) {
				seen[sl.Name] = true
				names = append(names, sl.Name)
			}
		}
	}
	sort.Strings(names)
	var out []Input
	for _, n := range names {
		out = append(out, inputFor(rec, n))
	}
	return out
}

func inputFor(rec *sample.Recording, slot string) Input {
	in := Input{Slot: slot, HasSubscriber: rec.Subscriber != nil, FlushLagS: -1}
	if oid, relid, ok := tablesyncSlot(slot); ok {
		in.Sync = &Sync{SubOID: oid, RelID: relid}
	}
	in.Summary = measure.Summarise(rec, measure.Filter{Slots: map[string]bool{slot: true}})
	in.ProcPub = rec.Publisher.ProcUnavailable == ""
	in.ProcSub = rec.Subscriber != nil && rec.Subscriber.ProcUnavailable == ""
	in.Gaps = len(rec.Gaps)
	var first, last *sample.Slot
	var firstSub, lastSub *sample.Sub
	var firstSubAt, lastSubAt time.Time
	var e txnEnds
	var lags []int64
	lastPID := -1
	for i := range rec.Ticks {
		t := &rec.Ticks[i]
		if t.PubOK {
			for j := range t.Slots {
				if t.Slots[j].Name == slot {
					if first == nil {
						first = &t.Slots[j]
						e.firstAt, e.sent0, e.subLSN0 = t, t.SentBy(t.Slots[j].ActivePID), t.SubLSN
					}
					last = &t.Slots[j]
					e.lastAt, e.sent1, e.subLSN1 = t, t.SentBy(t.Slots[j].ActivePID), t.SubLSN
					lags = append(lags, t.CurrentLSN.Sub(t.Slots[j].ConfirmedFlush))
				}
			}
		}
		if t.SubOK {
			for j := range t.Subs {
				if t.Subs[j].Slot == slot || (in.Sync != nil && t.Subs[j].OID == in.Sync.SubOID) {
					if firstSub == nil {
						firstSub, firstSubAt = &t.Subs[j], t.At
					}
					s := &t.Subs[j]
					lastSubAt = t.At
					if lastPID >= 0 && s.WorkerPID != lastPID {
						in.WorkerChanges++
					}
					lastPID = s.WorkerPID
					lastSub = s
				}
			}
		}
	}
	if last != nil {
		in.SlotFound, in.SlotActive, in.WALStatus, in.Invalidation = true, last.Active, last.WALStatus, last.Invalidation
		in.SpillBytes = last.SpillBytes - first.SpillBytes
	}
	if lastSub != nil {
		in.Subscription, in.SubEnabled, in.ApplyWorker = lastSub.Name, lastSub.Enabled, lastSub.WorkerPID != 0
		in.ApplyErrors = lastSub.ApplyErrors - firstSub.ApplyErrors
		in.SyncErrors = lastSub.SyncErrors - firstSub.SyncErrors
		in.NotReady = lastSub.NotReady
		if in.WorkerChanges == 0 && lastSub.WorkerPID != 0 && sameTime(firstSub.LastMsgReceiptAt, lastSub.LastMsgReceiptAt) {
			in.SilentS = lastSubAt.Sub(firstSubAt).Seconds()
		}
	}
	in.MedianLag = medianLag(lags)
	in.FlushLagS = flushLag(rec, last)
	if in.Sync != nil {
		in.Sync.fill(rec)
	}
	bs := measure.Blockers(rec, slot)
	in.Blockers = make([]Blocker, len(bs))
	for i, b := range bs {
		in.Blockers[i] = Blocker{b}
	}
	if last != nil {
		if ws, ok := e.lastAt.Sender(last.ActivePID); ok && ws.Sent != 0 {
			in.Reported = &Reported{WriteBehind: ws.Sent.Sub(ws.Write), FlushBehind: ws.Sent.Sub(ws.Flush)}
		}
	}
	e.first, e.last, e.windowS = first, last, in.Summary.WindowS
	e.waitsForWAL = in.Summary.Walsender.Share(evWaitForWAL) >= MostProbes
	in.Txn = largeTxn(e)
	if e.sent0 != 0 && e.sent1 >= e.sent0+SubWALMinSent && e.subLSN0 != 0 && e.subLSN1 > e.subLSN0 {
		in.SubWALPerSent = float64(e.subLSN1-e.subLSN0) / float64(e.sent1-e.sent0)
	}
	return in
}

// sameTime reports two times both known and equal.
func sameTime(a, b *time.Time) bool { return a != nil && b != nil && a.Equal(*b) }

// flushLag returns the flush_lag of the slot's walsender at the last tick
// that reported one (the walsender's pid is the slot's active_pid then), or
// -1.
func flushLag(rec *sample.Recording, last *sample.Slot) float64 {
	if last == nil {
		return -1
	}
	for i := len(rec.Ticks) - 1; i >= 0; i-- {
		t := &rec.Ticks[i]
		sl, _ := t.Slot(last.Name)
		if s, ok := t.Sender(sl.ActivePID); ok && s.FlushLagS != nil {
			return *s.FlushLagS
		}
	}
	return -1
}

// medianLag is the median of lags in whole bytes (0 when none).
func medianLag(v []int64) int64 {
	if len(v) == 0 {
		return 0
	}
	return int64(median.Of(v))
}

// SubWALMinSent is the WAL the walsender must send over a window before
// the subscriber's WAL per byte sent counts (1 MiB: less is keepalives and
// noise).
const SubWALMinSent = 1 << 20
