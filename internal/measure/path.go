package measure

import (
	"slices"
	"sort"
	"time"

	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/median"
	"github.com/lagscope/lagscope/internal/sample"
)

// Path is what a recording says about one logical slot's path (the slot,
// its walsender and the subscription that consumes it): its Summary, the
// slot and the subscription at the window's ends, and what the ticks
// showed between them. These are the facts the classifier judges; nothing
// else reads the ticks for it.
type Path struct {
	Slot    string
	Summary Summary
	// First and Last are the slot at the first and the last tick at which
	// the publisher answered and listed it; nil when it never did.
	First, Last *SlotEnd
	// Sub is the subscription that consumes the slot (the one naming it,
	// or for a tablesync slot the one with its oid) at the last tick the
	// subscriber answered and listed it; nil when none did. When several
	// name the slot, it is the active one (see claimant).
	Sub *sample.Sub
	// Rivals are the other subscriptions that name the slot as well
	// (slot_name), at any tick, by name; nil when one does.
	Rivals []string
	// SpillBytes is the increase of the slot's spill_bytes from First to
	// Last.
	SpillBytes int64
	// ApplyErrors and SyncErrors are the increases of Sub's
	// apply_error_count and sync_error_count over the window.
	ApplyErrors, SyncErrors int64
	// WorkerChanges counts the times the subscription's apply worker pid
	// changed or vanished from one tick to the next.
	WorkerChanges int
	// SilentS is how long the apply worker was seen receiving nothing (its
	// last_msg_receipt_time stood still from the first tick to the last,
	// one worker throughout), seconds; 0 when it received anything.
	SilentS float64
	// MedianLag is the median of the slot's unconfirmed WAL (current -
	// confirmed_flush_lsn) over the ticks that listed it, bytes; 0 when none.
	MedianLag int64
	// FlushLagS is the walsender's flush_lag at the last tick that had one,
	// seconds; -1 when never reported.
	FlushLagS float64
	// Reported is what the consumer last reported to the walsender (nil
	// without a walsender at Last's tick).
	Reported *Reported
	// SubWALPerSent is the WAL the subscriber wrote per byte of WAL the
	// walsender sent over the window (0 = unknown: no subscriber position,
	// or under SubWALMinSent sent). What applying costs in writes: indexes
	// the publisher lacks, triggers and full-page images raise it.
	SubWALPerSent float64
	// Tablesync is the table a tablesync slot (pg_<suboid>_sync_<relid>_<sysid>)
	// copies; nil for any other slot.
	Tablesync *Tablesync
	// Blockers are the sessions that held locks the subscription's workers
	// waited for, most often seen first.
	Blockers []Blocker
}

// SlotEnd is a slot at one end of the window, with what the same tick
// said of its walsender and of both servers' WAL positions.
type SlotEnd struct {
	sample.Slot
	// CurrentLSN is the publisher's current WAL position at that tick.
	CurrentLSN lsn.LSN
	// Sent is the sent_lsn of the slot's walsender (0 when it had none).
	Sent lsn.LSN
	// SubLSN is the subscriber's own current WAL position (0 when unknown).
	SubLSN lsn.LSN
	// Xacts are the publisher's oldest writing transactions at that tick.
	Xacts []sample.OpenXact
}

// Reported is how far the positions a consumer reports (pg_stat_replication
// write_lsn, flush_lsn) trail the walsender's sent_lsn, bytes.
type Reported struct {
	WriteBehind, FlushBehind int64
}

// SubWALMinSent is the WAL the walsender must send over a window before
// the subscriber's WAL per byte sent counts (1 MiB: less is keepalives and
// noise).
const SubWALMinSent = 1 << 20

// Paths derives one Path per logical slot the recording lists (restricted
// to slots when not empty), ordered by slot name.
func Paths(rec *sample.Recording, slots []string) []Path {
	want := map[string]bool{}
	for _, s := range slots {
		want[s] = true
	}
	var names []string
	seen := map[string]bool{}
	for _, t := range rec.Ticks {
		for _, sl := range t.Read(sample.PublisherNode).Slots {
			if !seen[sl.Name] && (len(want) == 0 || want[sl.Name]) {
				seen[sl.Name] = true
				names = append(names, sl.Name)
			}
		}
	}
	sort.Strings(names)
	var out []Path
	for _, n := range names {
		out = append(out, PathOf(rec, n))
	}
	return out
}

// PathOf derives slot's Path from the recording.
func PathOf(rec *sample.Recording, slot string) Path {
	p := Path{Slot: slot, FlushLagS: -1}
	if oid, relid, ok := TablesyncSlot(slot); ok {
		p.Tablesync = tablesyncOf(rec, oid, relid)
	}
	p.Summary = Summarise(rec, Filter{Slots: map[string]bool{slot: true}})
	var firstSub *sample.Sub
	var firstSubAt, lastSubAt time.Time
	var lags []int64
	var lastTick *sample.Tick
	lastPID := -1
	for i := range rec.Ticks {
		t := &rec.Ticks[i]
		pub, sub := t.Read(sample.PublisherNode), t.Read(sample.SubscriberNode)
		if pub.OK {
			for _, sl := range pub.Slots {
				if sl.Name == slot {
					end := &SlotEnd{Slot: sl, CurrentLSN: pub.CurrentLSN, Sent: t.Read(sample.PublisherNode).SentBy(sl.ActivePID), SubLSN: sub.CurrentLSN, Xacts: pub.Xacts}
					if p.First == nil {
						p.First = end
					}
					p.Last, lastTick = end, t
					lags = append(lags, pub.CurrentLSN.Sub(sl.ConfirmedFlush))
				}
			}
		}
		if sub.OK {
			s, rivals := claimant(sub.Subs, slot, p.Tablesync)
			for _, r := range rivals {
				if !slices.Contains(p.Rivals, r) {
					p.Rivals = append(p.Rivals, r)
				}
			}
			if s == nil {
				continue
			}
			if firstSub == nil || firstSub.Name != s.Name {
				// The first tick of the subscription chosen (a choice
				// between rivals may change as their workers come and go).
				firstSub, firstSubAt, lastPID = s, t.At, -1
			}
			lastSubAt = t.At
			if lastPID >= 0 && s.WorkerPID != lastPID {
				p.WorkerChanges++
			}
			lastPID = s.WorkerPID
			p.Sub = s
		}
	}
	if p.Sub != nil {
		p.Rivals = slices.DeleteFunc(p.Rivals, func(n string) bool { return n == p.Sub.Name })
		if len(p.Rivals) == 0 {
			p.Rivals = nil
		}
	}
	if p.Last != nil {
		p.SpillBytes = p.Last.SpillBytes - p.First.SpillBytes
		if ws, ok := lastTick.Read(sample.PublisherNode).Sender(p.Last.ActivePID); ok && ws.Sent != 0 {
			p.Reported = &Reported{WriteBehind: ws.Sent.Sub(ws.Write), FlushBehind: ws.Sent.Sub(ws.Flush)}
		}
		p.FlushLagS = flushLag(rec, slot)
		f, l := p.First, p.Last
		if f.Sent != 0 && l.Sent >= f.Sent+SubWALMinSent && f.SubLSN != 0 && l.SubLSN > f.SubLSN {
			p.SubWALPerSent = float64(l.SubLSN-f.SubLSN) / float64(l.Sent-f.Sent)
		}
	}
	if last := p.Sub; last != nil {
		p.ApplyErrors = last.ApplyErrors - firstSub.ApplyErrors
		p.SyncErrors = last.SyncErrors - firstSub.SyncErrors
		if p.WorkerChanges == 0 && last.WorkerPID != 0 && sameTime(firstSub.LastMsgReceiptAt, last.LastMsgReceiptAt) {
			p.SilentS = lastSubAt.Sub(firstSubAt).Seconds()
		}
	}
	if len(lags) > 0 {
		p.MedianLag = int64(median.Of(lags))
	}
	p.Blockers = Blockers(rec, slot)
	return p
}

// claimant is the subscription of subs that consumes slot: the one with
// the tablesync slot's subscription oid (ts not nil), or the one naming it
// (slot_name). When several name it (a disabled one left on the same slot
// beside the one in use), the active one is chosen: enabled with an apply
// worker, else enabled, else the first by name; rivals are the others'
// names. Nil when none does.
func claimant(subs []sample.Sub, slot string, ts *Tablesync) (s *sample.Sub, rivals []string) {
	rank := func(x *sample.Sub) int {
		switch {
		case x.Enabled && x.WorkerPID != 0:
			return 2
		case x.Enabled:
			return 1
		}
		return 0
	}
	var all []*sample.Sub
	for j := range subs {
		x := &subs[j]
		if ts != nil && x.OID == ts.SubOID || ts == nil && x.Slot == slot {
			all = append(all, x)
			if s == nil || rank(x) > rank(s) {
				s = x
			}
		}
	}
	for _, x := range all {
		if x != s {
			rivals = append(rivals, x.Name)
		}
	}
	return s, rivals
}

// sameTime reports two times both known and equal.
func sameTime(a, b *time.Time) bool { return a != nil && b != nil && a.Equal(*b) }

// flushLag returns the flush_lag of the slot's walsender at the last tick
// that reported one (the walsender's pid is the slot's active_pid then), or
// -1.
func flushLag(rec *sample.Recording, slot string) float64 {
	for i := len(rec.Ticks) - 1; i >= 0; i-- {
		t := &rec.Ticks[i]
		sl, _ := t.Read(sample.PublisherNode).Slot(slot)
		if s, ok := t.Read(sample.PublisherNode).Sender(sl.ActivePID); ok && s.FlushLagS != nil {
			return *s.FlushLagS
		}
	}
	return -1
}
