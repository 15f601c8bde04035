package measure

import (
	"sort"
	"strings"
	"time"

	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/sample"
)

// CPUEvent is the name used for probes in which a process had no wait event
// (on a CPU or runnable).
const CPUEvent = "CPU"

// Filter selects the slots (and their subscriptions) to measure; an empty
// Filter selects every logical slot.
type Filter struct {
	Slots map[string]bool
}

func (f Filter) has(slot string) bool { return len(f.Slots) == 0 || f.Slots[slot] }

// Summary is what a recording says about the selected paths over its window.
type Summary struct {
	Window  time.Duration `json:"-"`
	WindowS float64       `json:"window_s"`
	Ticks   int           `json:"ticks"`
	// Generated and Consumed are bytes of WAL per second: the advance of the
	// current WAL position, and of the slowest selected slot's confirmed_flush_lsn.
	Generated float64 `json:"generated_bytes_per_s"`
	Consumed  float64 `json:"consumed_bytes_per_s"`
	// Decoded is the advance of the slowest selected walsender's sent_lsn
	// (WAL read and decoded), bytes/s; 0 when no walsender ran throughout.
	// The subscriber confirms in bursts (every wal_receiver_status_interval
	// while busy), so over short windows Decoded tracks progress better.
	Decoded   float64 `json:"decoded_bytes_per_s"`
	Walsender Proc    `json:"walsender"`
	Apply     Proc    `json:"apply"`
	// Parallel holds one Proc per parallel apply worker seen (16+), busiest
	// (CPU + run queue, or probes without a wait event) first.
	Parallel []Proc `json:"parallel_apply,omitempty"`
	Lag      Lag    `json:"lag"`
	// PubHostBusy and SubHostBusy are the hosts' busy shares (0..1) over the
	// window; -1 when unknown.
	PubHostBusy float64 `json:"pub_host_busy"`
	SubHostBusy float64 `json:"sub_host_busy"`
	// PositionWentBack says the slowest selected slot's confirmed position
	// was lower at the window's end than at its start (a publisher restart):
	// Consumed is 0 then.
	PositionWentBack bool `json:"position_went_back,omitempty"`
	// PubCPU and SubCPU are the servers' CPU contention measured from
	// inside them (CPU bursts, wake-up lateness): the stand-in for /proc.
	PubCPU Contention `json:"pub_cpu_contention"`
	SubCPU Contention `json:"sub_cpu_contention"`
	// PubLoad and SubLoad are the load that shared the servers' CPUs with
	// the walsender and the apply workers (nil: not read).
	PubLoad *Competing `json:"pub_competing,omitempty"`
	SubLoad *Competing `json:"sub_competing,omitempty"`
}

// Proc aggregates the processes of one role over the window.
type Proc struct {
	// Count is the number of distinct processes seen.
	Count int `json:"count"`
	// CPUShare is CPU time over wall time, summed over the processes
	// (1.0 = one full core); -1 when /proc was not usable.
	CPUShare float64 `json:"cpu_share" jsonschema:"nullable"`
	// RunqueueShare is run-queue wait (runnable, not running) over wall
	// time, summed over the processes; -1 when unknown.
	RunqueueShare float64 `json:"runqueue_share" jsonschema:"nullable"`
	// WaitShares maps wait event name ("CPU" for none) to its share of probes.
	WaitShares map[string]float64 `json:"wait_shares"`
	// TypeShares maps wait_event_type ("CPU" for none) to its share of probes.
	TypeShares map[string]float64 `json:"wait_type_shares"`
	// Probes is the number of (probe, process) observations behind WaitShares.
	Probes int `json:"probes"`
	// PID is the process when the Proc measures one (parallel apply); 0
	// for a role's aggregate.
	PID int `json:"pid,omitempty"`
	// Throttle is what the CPU limit of the processes' cgroup did (/proc
	// and /sys/fs/cgroup, local servers only).
	Throttle Throttle `json:"cpu_limit"`
}

// Top returns the most frequent wait event and its share.
func (p Proc) Top() (string, float64) {
	if r := Ranked(p.WaitShares); len(r) > 0 && r[0].Share > 0 {
		return r[0].Event, r[0].Share
	}
	return "", 0
}

// Share returns the share of probes with any of the given events. Names are
// compared without regard to case, because PostgreSQL 17 renamed many events
// by case only (WalSenderWaitForWAL -> WalSenderWaitForWal, WALRead -> WalRead).
func (p Proc) Share(events ...string) float64 {
	s := 0.0
	for k, v := range p.WaitShares {
		for _, e := range events {
			if strings.EqualFold(k, e) {
				s += v
				break
			}
		}
	}
	return s
}

// TypeShare returns the share of probes whose wait_event_type is one of types.
func (p Proc) TypeShare(types ...string) float64 {
	s := 0.0
	for _, t := range types {
		s += p.TypeShares[t]
	}
	return s
}

// Lag is where unconfirmed WAL sits at the end of the window, in bytes.
type Lag struct {
	Total           int64 `json:"total_bytes"`
	NotYetSent      int64 `json:"not_yet_sent_bytes"`          // current - sent
	SentNotFlushed  int64 `json:"sent_not_flushed_bytes"`      // sent - flush
	FlushedNotConfd int64 `json:"flushed_not_confirmed_bytes"` // flush - confirmed_flush
	// BeforeSentShare is NotYetSent / Total (0 when Total is 0).
	BeforeSentShare float64 `json:"before_sent_share"`
	// MaxSentMinusFlush is the largest sent - flush seen in any tick.
	MaxSentMinusFlush int64 `json:"max_sent_minus_flush_bytes"`
	// Start is the total lag at the start of the window.
	Start int64 `json:"start_bytes"`
}

// Summarise derives a Summary from rec for the slots f selects.
func Summarise(rec *sample.Recording, f Filter) Summary {
	none := Contention{Stretch: -1, LateMedianMS: -1, LateP90MS: -1}
	s := Summary{PubHostBusy: -1, SubHostBusy: -1, PubCPU: none, SubCPU: none}
	ticks := okTicks(rec.Ticks)
	s.Ticks = len(ticks)
	if len(ticks) < 2 {
		s.Walsender, s.Apply = emptyProc(), emptyProc()
		return s
	}
	first, last := ticks[0], ticks[len(ticks)-1]
	s.Window = last.At.Sub(first.At)
	s.WindowS = s.Window.Seconds()
	sec := s.WindowS
	s.Generated = float64(last.Read(sample.PublisherNode).CurrentLSN.Sub(first.Read(sample.PublisherNode).CurrentLSN)) / sec
	c0, ok0 := minConfirmed(first, f)
	c1, ok1 := minConfirmed(last, f)
	if ok0 && ok1 {
		if c1 < c0 {
			// A restarted publisher reads its slots' positions from disk,
			// behind what they had reached.
			s.PositionWentBack = true
		} else {
			s.Consumed = float64(c1-c0) / sec
		}
	}
	if s0, _ := senderPos(first, f); s0 != 0 {
		if s1, _ := senderPos(last, f); s1 >= s0 {
			s.Decoded = float64(s1-s0) / sec
		}
	}
	roles := Roles(rec.Ticks, f)
	s.Walsender = procStats(rec, ticks, roles, sample.RoleWalsender, sample.Publisher)
	s.Apply = procStats(rec, ticks, roles, sample.RoleApply, sample.Subscriber)
	s.Parallel = parallelStats(rec, ticks, roles)
	s.Lag = lagAt(first, last, ticks, f)
	s.PubHostBusy = hostBusy(first.Read(sample.PublisherNode).Host, last.Read(sample.PublisherNode).Host)
	s.SubHostBusy = hostBusy(first.Read(sample.SubscriberNode).Host, last.Read(sample.SubscriberNode).Host)
	s.PubCPU = contention(rec, ticks, sample.Publisher)
	s.PubLoad = competing(ticks, sample.PublisherNode, replicationPIDs(ticks, sample.Publisher))
	if rec.Server(sample.SubscriberNode) != nil {
		s.SubCPU = contention(rec, ticks, sample.Subscriber)
		s.SubLoad = competing(ticks, sample.SubscriberNode, replicationPIDs(ticks, sample.Subscriber))
	}
	return s
}

// Progress is the best estimate of how fast the backlog drains: the larger of
// Consumed and Decoded (bytes/s).
func (s Summary) Progress() float64 {
	if s.Decoded > s.Consumed {
		return s.Decoded
	}
	return s.Consumed
}

// ProgressBasis names the position Progress follows: confirmed_flush_lsn
// (Consumed) or sent_lsn (Decoded).
func (s Summary) ProgressBasis() string {
	if s.Consumed >= s.Decoded {
		return "confirmed_flush_lsn"
	}
	return "sent_lsn"
}

// okTicks keeps ticks in which the publisher answered.
func okTicks(ts []sample.Tick) []sample.Tick {
	var out []sample.Tick
	for _, t := range ts {
		if t.Read(sample.PublisherNode).OK {
			out = append(out, t)
		}
	}
	return out
}

func minConfirmed(t sample.Tick, f Filter) (lsn.LSN, bool) {
	var m lsn.LSN
	found := false
	for _, sl := range t.Read(sample.PublisherNode).Slots {
		if !f.has(sl.Name) || sl.ConfirmedFlush == 0 {
			continue
		}
		if !found || sl.ConfirmedFlush < m {
			m, found = sl.ConfirmedFlush, true
		}
	}
	return m, found
}

func procStats(rec *sample.Recording, ticks []sample.Tick, roles map[Backend]BackendRole, role, side string) Proc {
	p := emptyProc()
	pids := pidsOf(roles, role, side)
	p.Count = len(pids)
	// CPU: per pid, the delta between its first and last appearance.
	type span struct {
		cpu0, cpu1, rq0, rq1 int64
		from, to             time.Time
	}
	spans := map[int]*span{}
	for _, t := range ticks {
		for _, ps := range t.Procs {
			if ps.Side != side || !pids[ps.PID] {
				continue
			}
			sp := spans[ps.PID]
			if sp == nil {
				sp = &span{cpu0: ps.CPUNs, rq0: ps.RunqNs, from: t.At}
				spans[ps.PID] = sp
			}
			sp.cpu1, sp.rq1, sp.to = ps.CPUNs, ps.RunqNs, t.At
		}
	}
	if len(spans) > 0 && len(ticks) >= 2 {
		// Shares over the time the processes were seen: a process that
		// replaced another (a restart) is not diluted by the time before
		// it existed. Processes seen at the same time (several paths) add
		// up, so the wall time is the union of their spans.
		var cpu, rq int64
		for _, sp := range spans {
			cpu += sp.cpu1 - sp.cpu0
			rq += sp.rq1 - sp.rq0
		}
		if wall := float64(covered(spans, func(sp *span) (time.Time, time.Time) { return sp.from, sp.to })); wall > 0 {
			p.CPUShare = float64(cpu) / wall
			p.RunqueueShare = float64(rq) / wall
		} else {
			p.CPUShare, p.RunqueueShare = -1, -1
		}
	}
	p.Throttle = throttleOf(ticks, pids, side)
	from, to := ticks[0].At, ticks[len(ticks)-1].At
	counts, types := map[string]int{}, map[string]int{}
	for _, pr := range rec.Probes {
		if pr.Side != side || pr.At.Before(from) || pr.At.After(to) {
			continue
		}
		for _, w := range pr.Waits {
			if !pids[w.PID] {
				continue
			}
			ev, ty := w.Event, w.Type
			if ev == "" {
				ev, ty = CPUEvent, CPUEvent
			}
			counts[ev]++
			types[ty]++
			p.Probes++
		}
	}
	for ev, n := range counts {
		p.WaitShares[ev] = float64(n) / float64(p.Probes)
	}
	for ty, n := range types {
		p.TypeShares[ty] = float64(n) / float64(p.Probes)
	}
	return p
}

// parallelStats measures each parallel apply worker on its own: the
// busiest one decides whether parallel apply is the limit.
func parallelStats(rec *sample.Recording, ticks []sample.Tick, roles map[Backend]BackendRole) []Proc {
	var out []Proc
	for b, r := range roles {
		if r.Role != sample.RoleParallel {
			continue
		}
		p := procStats(rec, ticks, map[Backend]BackendRole{b: r}, sample.RoleParallel, b.Side)
		p.PID = b.PID
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		bi, bj := out[i].busy(), out[j].busy()
		if bi != bj {
			return bi > bj
		}
		return out[i].PID < out[j].PID
	})
	return out
}

// busy is CPU plus run queue, or without /proc the share of probes with no
// wait event.
func (p Proc) busy() float64 {
	if p.CPUShare >= 0 {
		return p.CPUShare + max(p.RunqueueShare, 0)
	}
	return p.WaitShares[CPUEvent]
}

func emptyProc() Proc {
	return Proc{CPUShare: -1, RunqueueShare: -1, WaitShares: map[string]float64{}, TypeShares: map[string]float64{}, Throttle: Throttle{Share: -1}}
}

func lagAt(first, last sample.Tick, ticks []sample.Tick, f Filter) Lag {
	var l Lag
	if c, ok := minConfirmed(first, f); ok {
		l.Start = first.Read(sample.PublisherNode).CurrentLSN.Sub(c)
	}
	conf, ok := minConfirmed(last, f)
	if !ok {
		return l
	}
	l.Total = last.Read(sample.PublisherNode).CurrentLSN.Sub(conf)
	sent, flush := senderPos(last, f)
	if sent == 0 {
		// No walsender: nothing was sent since the slot's confirmed position.
		l.NotYetSent = l.Total
	} else {
		l.NotYetSent = clamp(last.Read(sample.PublisherNode).CurrentLSN.Sub(sent))
		l.SentNotFlushed = clamp(sent.Sub(flush))
		l.FlushedNotConfd = clamp(flush.Sub(conf))
	}
	if l.Total > 0 {
		l.BeforeSentShare = float64(l.NotYetSent) / float64(l.Total)
	}
	for _, t := range ticks {
		s, fl := senderPos(t, f)
		if s != 0 && s.Sub(fl) > l.MaxSentMinusFlush {
			l.MaxSentMinusFlush = s.Sub(fl)
		}
	}
	return l
}

// senderPos returns the smallest sent and flush positions among walsenders of
// the selected slots (0 when none).
func senderPos(t sample.Tick, f Filter) (sent, flush lsn.LSN) {
	active := map[int]bool{}
	for _, sl := range t.Read(sample.PublisherNode).Slots {
		if f.has(sl.Name) && sl.ActivePID != 0 {
			active[sl.ActivePID] = true
		}
	}
	for _, s := range t.Read(sample.PublisherNode).Senders {
		if !active[s.PID] {
			continue
		}
		if sent == 0 || s.Sent < sent {
			sent = s.Sent
		}
		if flush == 0 || s.Flush < flush {
			flush = s.Flush
		}
	}
	return sent, flush
}

func hostBusy(a, b *sample.HostStat) float64 {
	if a == nil || b == nil || b.TotalNs <= a.TotalNs {
		return -1
	}
	return float64(b.BusyNs-a.BusyNs) / float64(b.TotalNs-a.TotalNs)
}

func clamp(v int64) int64 {
	if v < 0 {
		return 0
	}
	return v
}

// covered returns the length of the union of the intervals of spans.
func covered[S any](spans map[int]S, interval func(S) (time.Time, time.Time)) time.Duration {
	type iv struct{ from, to time.Time }
	var ivs []iv
	for _, sp := range spans {
		f, t := interval(sp)
		if t.After(f) {
			ivs = append(ivs, iv{f, t})
		}
	}
	sort.Slice(ivs, func(i, j int) bool { return ivs[i].from.Before(ivs[j].from) })
	var total time.Duration
	var cur iv
	for i, x := range ivs {
		switch {
		case i == 0:
			cur = x
		case !x.from.After(cur.to):
			if x.to.After(cur.to) {
				cur.to = x.to
			}
		default:
			total += cur.to.Sub(cur.from)
			cur = x
		}
	}
	if len(ivs) > 0 {
		total += cur.to.Sub(cur.from)
	}
	return total
}

// TickLag is slot's lag at one tick, split like Summary.Lag (Start and
// MaxSentMinusFlush are that tick's): for live views.
func TickLag(t sample.Tick, slot string) Lag {
	return lagAt(t, t, []sample.Tick{t}, Filter{Slots: map[string]bool{slot: true}})
}

// replicationPIDs are the replication processes of side the ticks read
// (walsenders, apply and tablesync workers): the starved, not the load.
func replicationPIDs(ticks []sample.Tick, side string) map[int]bool {
	out := map[int]bool{}
	for _, t := range ticks {
		for _, p := range t.Procs {
			if p.Side == side {
				out[p.PID] = true
			}
		}
		if side == sample.Publisher {
			for _, s := range t.Read(sample.PublisherNode).Senders {
				out[s.PID] = true
			}
		} else {
			for _, s := range t.Read(sample.SubscriberNode).Subs {
				out[s.WorkerPID] = true
			}
		}
	}
	return out
}
