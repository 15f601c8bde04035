package measure

import (
	"time"

	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/sample"
)

// Physical is what a recording says about one physical path: a primary's
// walsender feeding a standby, its WAL receiver and its startup process.
// Either end may be unobserved (Primary, Standby false): its figures are
// then taken from what the other end reports, or unknown.
type Physical struct {
	// Standby names the path: the walsender's application_name, or the
	// standby node's id when the primary is not observed.
	Standby string `json:"standby"`
	// HasPrimary and HasStandby say which ends were observed.
	HasPrimary bool    `json:"primary_observed"`
	HasStandby bool    `json:"standby_observed"`
	WindowS    float64 `json:"window_s"`
	Ticks      int     `json:"ticks"`
	// Rates, bytes/s over the window (0 when unknown or not moving; see
	// Known): WAL generated (the primary's current position, or without it
	// the receiver's latest_end_lsn), sent (the walsender's sent_lsn),
	// received (pg_last_wal_receive_lsn, or the walsender's flush_lsn) and
	// replayed (pg_last_wal_replay_lsn, or the walsender's replay_lsn).
	Generated float64 `json:"generated_bytes_per_s"`
	Sent      float64 `json:"sent_bytes_per_s"`
	Received  float64 `json:"received_bytes_per_s"`
	Replayed  float64 `json:"replayed_bytes_per_s"`
	// Known says which rates and backlogs were measured, by Pos* name.
	Known map[string]bool `json:"known"`
	// Backlogs at the window's end, bytes: WAL not yet sent (current -
	// sent), in flight (sent - received) and received not yet replayed
	// (received - replayed); -1 when unknown.
	Unsent     int64 `json:"unsent_bytes"`
	InFlight   int64 `json:"in_flight_bytes"`
	Unreplayed int64 `json:"unreplayed_bytes"`
	// UnreplayedStart is the unreplayed backlog at the window's first tick
	// (-1 unknown).
	UnreplayedStart int64 `json:"unreplayed_start_bytes"`
	// Sender is the walsender's row at the last tick that listed it (nil:
	// none seen, or the primary not observed).
	Sender *sample.Sender `json:"sender,omitempty"`
	// Walsender, Receiver and Startup are the stages' processes.
	Walsender Proc `json:"walsender"`
	Receiver  Proc `json:"receiver"`
	Startup   Proc `json:"startup"`
	// Replay is the startup process's probes by class (ReplayClass).
	Replay map[string]float64 `json:"replay_classes"`
	// SyncRepProbes is the number of the primary's observations in which
	// a client backend waited on SyncRep (its commit waits for a
	// synchronous standby), PrimaryProbes the number of observations: its
	// ticks' active backends where they were read (their wait events), or
	// else its probes.
	SyncRepProbes int `json:"syncrep_probes"`
	PrimaryProbes int `json:"primary_probes"`
	// PrimaryHostBusy and StandbyHostBusy are the hosts' busy shares (-1
	// unknown).
	PrimaryHostBusy float64 `json:"primary_host_busy"`
	StandbyHostBusy float64 `json:"standby_host_busy"`
	// PrimaryCPU and StandbyCPU are the servers' CPU contention measured
	// from inside (the stand-in for /proc).
	PrimaryCPU Contention `json:"primary_cpu_contention"`
	StandbyCPU Contention `json:"standby_cpu_contention"`
	// Last is the standby's read at the last tick it answered (nil: the
	// standby not observed).
	Last *sample.StandbyRead `json:"last,omitempty"`
	// Prefetch and IO are the increases of pg_stat_recovery_prefetch's
	// and the startup process's pg_stat_io counters over the window (nil:
	// not read at both ends).
	Prefetch *sample.RecoveryPrefetch `json:"prefetch,omitempty"`
	IO       *sample.StartupIO        `json:"io,omitempty"`
	// Conflicts are the increases of pg_stat_database_conflicts' counters
	// (queries cancelled by replay) over the window.
	Conflicts map[string]int64 `json:"conflicts,omitempty"`
	// Holders are the sessions seen holding back replay at the standby's
	// last tick (nil: none then), and HeldS how long holders had been seen
	// at every tick up to it, seconds (0 at one tick): at least how long
	// replay has waited on them.
	Holders []sample.ConflictHolder `json:"holders,omitempty"`
	HeldS   float64                 `json:"held_s,omitempty"`
	// FPI and WALBytes are the full-page images and the bytes the
	// primary's WAL grew by over the window (pg_stat_wal; -1 when not read
	// at two ticks, or reset between them).
	FPI      int64 `json:"wal_fpi"`
	WALBytes int64 `json:"wal_bytes"`
	// Slot is the walsender's physical slot (nil: none, or listed at one
	// tick only).
	Slot *PhysSlot `json:"slot,omitempty"`
	// Downstreams are the cascaded standbys the observed standby feeds
	// from walsenders of its own (none: it feeds none, or is not
	// observed).
	Downstreams []Downstream `json:"downstreams,omitempty"`
	// StandbySlots are the logical slots on the observed standby (16+),
	// each with the walsender decoding it there.
	StandbySlots []StandbySlot `json:"standby_slots,omitempty"`
}

// NoFullPageImages says the primary's WAL grew over the window and carried
// no full-page image (pg_stat_wal read at two ticks): wal_compression,
// which shrinks those alone, has nothing to save.
func (p Physical) NoFullPageImages() bool { return p.FPI == 0 && p.WALBytes > 0 }

// PhysSlot is a physical slot at the first and the last tick that listed
// it, with the primary's current WAL position at each.
type PhysSlot struct {
	First, Last               sample.Slot
	FirstCurrent, LastCurrent lsn.LSN
	// SpanS is the time between the two ticks, seconds.
	SpanS float64
}

// The positions of a physical path (Physical.Known's keys).
const (
	PosGenerated = "generated"
	PosSent      = "sent"
	PosReceived  = "received"
	PosReplayed  = "replayed"
	PosUnsent    = "unsent"
	PosInFlight  = "in_flight"
	PosUnreplay  = "unreplayed"
)

// ends are one tick's positions of a physical path (0: unknown).
type ends struct {
	at                                  time.Time
	current, sent, received, replayed   lsn.LSN
	latestEnd, senderFlush, senderReply lsn.LSN
}

// PhysicalOf derives the physical path from the recording: the primary
// node's walsender feeding the standby node (when both are observed, the
// one on the standby's slot, else the only physical one; the zero key),
// or the walsender key picks when only the primary is.
func PhysicalOf(rec *sample.Recording, key StandbyKey) Physical {
	p := Physical{Standby: key.Label(), Unsent: -1, InFlight: -1, Unreplayed: -1, UnreplayedStart: -1, FPI: -1, WALBytes: -1,
		Known: map[string]bool{}, Replay: map[string]float64{}, PrimaryHostBusy: -1, StandbyHostBusy: -1,
		Walsender: emptyProc(), Receiver: emptyProc(), Startup: emptyProc()}
	none := Contention{Stretch: -1, LateMedianMS: -1, LateP90MS: -1}
	p.PrimaryCPU, p.StandbyCPU = none, none
	p.HasPrimary = rec.Server(sample.PrimaryNode) != nil
	p.HasStandby = rec.Server(sample.StandbyNode) != nil
	var ticks []sample.Tick
	for _, t := range rec.Ticks {
		if t.Read(sample.PrimaryNode).OK || t.Read(sample.StandbyNode).OK {
			ticks = append(ticks, t)
		}
	}
	p.Ticks = len(ticks)
	if len(ticks) < 2 {
		return p
	}
	p.WindowS = ticks[len(ticks)-1].At.Sub(ticks[0].At).Seconds()
	roles := map[Backend]BackendRole{}
	var es []ends
	var slotFirst *PhysSlot
	var slotFrom time.Time
	var walFirst, walLast *sample.WALStats
	for _, t := range ticks {
		e := ends{at: t.At}
		pr, sb := t.Read(sample.PrimaryNode), t.Read(sample.StandbyNode)
		if sb.OK && sb.Standby != nil {
			s := sb.Standby
			e.received, e.replayed = s.Receive, s.Replay
			if s.StartupPID != 0 {
				roles[Backend{string(sample.StandbyNode), s.StartupPID}] = BackendRole{Role: sample.RoleStartup}
			}
			if s.Receiver != nil {
				e.latestEnd = s.Receiver.LatestEnd
				if s.Receiver.PID != 0 {
					roles[Backend{string(sample.StandbyNode), s.Receiver.PID}] = BackendRole{Role: sample.RoleReceiver}
				}
			}
			last := *s
			p.Last = &last
		}
		if pr.OK && pr.WAL != nil {
			if walFirst == nil {
				walFirst = pr.WAL
			}
			walLast = pr.WAL
		}
		if pr.OK {
			e.current = pr.CurrentLSN
			if sn, ok := senderOf(key, pr, p.Last, p.Sender); ok {
				roles[Backend{string(sample.PrimaryNode), sn.PID}] = BackendRole{Role: sample.RoleWalsender, Slot: sn.Slot}
				e.sent, e.senderFlush, e.senderReply = sn.Sent, sn.Flush, sn.Replay
				if key == (StandbyKey{}) {
					p.Standby = sn.AppName
				}
				row := sn
				p.Sender = &row
				for _, sl := range pr.PhysicalSlots {
					if sn.Slot != "" && sl.Name == sn.Slot {
						if slotFirst == nil {
							slotFirst = &PhysSlot{First: sl, FirstCurrent: pr.CurrentLSN}
							slotFrom = t.At
						}
						slotFirst.Last, slotFirst.LastCurrent, slotFirst.SpanS = sl, pr.CurrentLSN, t.At.Sub(slotFrom).Seconds()
					}
				}
			}
		}
		if !p.HasStandby {
			e.received, e.replayed = e.senderFlush, e.senderReply
		}
		if !p.HasPrimary {
			e.current = e.latestEnd
		}
		es = append(es, e)
	}
	if p.Standby == "" {
		p.Standby = string(sample.StandbyNode)
	}
	if slotFirst != nil && slotFirst.SpanS > 0 {
		p.Slot = slotFirst
	}
	if walFirst != nil && walLast != walFirst && walLast.Bytes >= walFirst.Bytes && walLast.FPI >= walFirst.FPI {
		p.FPI, p.WALBytes = walLast.FPI-walFirst.FPI, walLast.Bytes-walFirst.Bytes
	}
	if p.HasStandby && p.Last == nil {
		// The standby observed but never read in the window (a recovery
		// conflict cancels reads on a standby replaying old WAL): what it
		// told the primary, which an idle primary hears only every
		// wal_receiver_status_interval.
		for i := range es {
			es[i].received, es[i].replayed = es[i].senderFlush, es[i].senderReply
		}
	}
	p.rates(es)
	p.backlogs(es)
	primary, standbyNode := string(sample.PrimaryNode), string(sample.StandbyNode)
	p.Walsender = procStats(rec, ticks, roles, sample.RoleWalsender, primary)
	p.Receiver = procStats(rec, ticks, roles, sample.RoleReceiver, standbyNode)
	p.Startup = procStats(rec, ticks, roles, sample.RoleStartup, standbyNode)
	p.Replay = replayClasses(rec, ticks, pidsOf(roles, sample.RoleStartup, standbyNode), rec.Server(sample.StandbyNode))
	p.SyncRepProbes, p.PrimaryProbes = syncRepProbes(rec, ticks, pidsOf(roles, sample.RoleWalsender, primary))
	first, last := ticks[0], ticks[len(ticks)-1]
	p.PrimaryHostBusy = hostBusy(first.Read(sample.PrimaryNode).Host, last.Read(sample.PrimaryNode).Host)
	p.StandbyHostBusy = hostBusy(first.Read(sample.StandbyNode).Host, last.Read(sample.StandbyNode).Host)
	if p.HasPrimary {
		p.PrimaryCPU = contention(rec, ticks, primary)
	}
	if p.HasStandby {
		p.StandbyCPU = contention(rec, ticks, standbyNode)
		p.standbyCounters(ticks)
		p.Downstreams = downstreams(rec, ticks)
		p.StandbySlots = standbySlots(rec, ticks)
	}
	return p
}

// senderOf is the walsender of the path in a primary's read: the one key
// picks, or with the zero key the one on the standby's slot (sb, the
// standby's last read, nil when unknown), else the one of last's pid (the
// walsender found at an earlier tick), else the only physical one, unless
// the standby streams from a slot the primary's walsender does not hold (a
// cascaded standby, fed by another standby: not this primary's).
func senderOf(key StandbyKey, pr sample.Read, sb *sample.StandbyRead, last *sample.Sender) (sample.Sender, bool) {
	var phys []sample.Sender
	for _, s := range pr.Senders {
		if s.Physical && (key == (StandbyKey{}) || key.matches(s)) {
			phys = append(phys, s)
		}
	}
	if key == (StandbyKey{}) && sb != nil && sb.Receiver != nil && sb.Receiver.Slot != "" {
		for _, s := range phys {
			if s.Slot == sb.Receiver.Slot {
				return s, true
			}
		}
		return sample.Sender{}, false
	}
	if last != nil {
		for _, s := range phys {
			if s.PID == last.PID {
				return s, true
			}
		}
	}
	if len(phys) == 1 {
		return phys[0], true
	}
	return sample.Sender{}, false
}

// rates measures each position's advance between the first and the last
// tick that knew it.
func (p *Physical) rates(es []ends) {
	for _, r := range []struct {
		key string
		pos func(ends) lsn.LSN
		out *float64
	}{
		{PosGenerated, func(e ends) lsn.LSN { return e.current }, &p.Generated},
		{PosSent, func(e ends) lsn.LSN { return e.sent }, &p.Sent},
		{PosReceived, func(e ends) lsn.LSN { return e.received }, &p.Received},
		{PosReplayed, func(e ends) lsn.LSN { return e.replayed }, &p.Replayed},
	} {
		var a, b *ends
		for i := range es {
			if r.pos(es[i]) != 0 {
				if a == nil {
					a = &es[i]
				}
				b = &es[i]
			}
		}
		if a == nil || a == b {
			continue
		}
		if s := b.at.Sub(a.at).Seconds(); s > 0 {
			p.Known[r.key] = true
			*r.out = sample.Advance(r.pos(*b), r.pos(*a)) / s
		}
	}
}

// backlogs splits the WAL behind by stage, each at the last tick that read
// both its ends (a tick whose standby read failed knows only the primary's).
func (p *Physical) backlogs(es []ends) {
	first := es[0]
	lastWith := func(a, b func(ends) lsn.LSN) (ends, bool) {
		for i := len(es) - 1; i >= 0; i-- {
			if a(es[i]) != 0 && b(es[i]) != 0 {
				return es[i], true
			}
		}
		return ends{}, false
	}
	cur := func(e ends) lsn.LSN { return e.current }
	sent := func(e ends) lsn.LSN { return e.sent }
	recv := func(e ends) lsn.LSN { return e.received }
	repl := func(e ends) lsn.LSN { return e.replayed }
	if e, ok := lastWith(cur, sent); ok {
		p.Unsent, p.Known[PosUnsent] = clamp(e.current.Sub(e.sent)), true
	}
	if e, ok := lastWith(sent, recv); ok {
		p.InFlight, p.Known[PosInFlight] = clamp(e.sent.Sub(e.received)), true
	}
	if e, ok := lastWith(recv, repl); ok {
		p.Unreplayed, p.Known[PosUnreplay] = clamp(e.received.Sub(e.replayed)), true
	}
	if first.received != 0 && first.replayed != 0 {
		p.UnreplayedStart = clamp(first.received.Sub(first.replayed))
	}
}

// Behind is the WAL the standby has not replayed, from the primary's
// position (or what the standby knows of it) to its replay position:
// the sum of the known backlogs, bytes (-1 when none is known).
func (p Physical) Behind() int64 {
	total, known := int64(0), false
	for _, b := range []int64{p.Unsent, p.InFlight, p.Unreplayed} {
		if b >= 0 {
			total, known = total+b, true
		}
	}
	if !known {
		return -1
	}
	return total
}

// standbyCounters reads the standby's cumulative counters at the window's
// ends and the conflict holders.
func (p *Physical) standbyCounters(ticks []sample.Tick) {
	var a, b *sample.StandbyRead
	var heldFrom time.Time
	for _, t := range ticks {
		r := t.Read(sample.StandbyNode)
		if !r.OK || r.Standby == nil {
			continue
		}
		if a == nil {
			a = r.Standby
		}
		b = r.Standby
		p.Holders, p.HeldS = r.Standby.Holders, 0
		switch {
		case len(r.Standby.Holders) == 0:
			heldFrom = time.Time{}
		case heldFrom.IsZero():
			heldFrom = t.At
		default:
			p.HeldS = t.At.Sub(heldFrom).Seconds()
		}
	}
	if a == nil {
		return
	}
	if a.Prefetch != nil && b.Prefetch != nil {
		d := sample.RecoveryPrefetch{Prefetch: b.Prefetch.Prefetch - a.Prefetch.Prefetch, Hit: b.Prefetch.Hit - a.Prefetch.Hit,
			SkipInit: b.Prefetch.SkipInit - a.Prefetch.SkipInit, SkipNew: b.Prefetch.SkipNew - a.Prefetch.SkipNew,
			SkipFPW: b.Prefetch.SkipFPW - a.Prefetch.SkipFPW, SkipRep: b.Prefetch.SkipRep - a.Prefetch.SkipRep,
			WALDistance: b.Prefetch.WALDistance, BlockDistance: b.Prefetch.BlockDistance, IODepth: b.Prefetch.IODepth}
		p.Prefetch = &d
	}
	if a.IO != nil && b.IO != nil {
		d := sample.StartupIO{Reads: b.IO.Reads - a.IO.Reads, Hits: b.IO.Hits - a.IO.Hits}
		if a.IO.ReadTimeMS != nil && b.IO.ReadTimeMS != nil {
			ms := *b.IO.ReadTimeMS - *a.IO.ReadTimeMS
			d.ReadTimeMS = &ms
		}
		p.IO = &d
	}
	for k, v := range b.Conflicts {
		if d := v - a.Conflicts[k]; d > 0 {
			if p.Conflicts == nil {
				p.Conflicts = map[string]int64{}
			}
			p.Conflicts[k] = d
		}
	}
}

// syncRepProbes counts the primary's probes in which a backend other than
// the path's walsender waited on SyncRep (its commit waits for a
// synchronous standby), and all of the primary's probes.
func syncRepProbes(rec *sample.Recording, ticks []sample.Tick, walsenders map[int]bool) (n, all int) {
	// The primary's active client backends at each tick, with their wait
	// events: its probes watch the walsenders only.
	for _, t := range ticks {
		act := t.Read(sample.PrimaryNode).Active
		if act == nil {
			continue
		}
		all++
		for _, b := range act {
			if b.WaitEvent == evSyncRep {
				n++
				break
			}
		}
	}
	if all > 0 {
		return n, all
	}
	from, to := ticks[0].At, ticks[len(ticks)-1].At
	for _, pr := range rec.Probes {
		if pr.Side != string(sample.PrimaryNode) || outside(pr.At, from, to) {
			continue
		}
		all++
		for _, w := range pr.Waits {
			if !walsenders[w.PID] && w.Event == evSyncRep {
				n++
				break
			}
		}
	}
	return n, all
}

// evSyncRep is a backend's wait for a synchronous standby (IPC, the same
// name in every version).
const evSyncRep = "SyncRep"
