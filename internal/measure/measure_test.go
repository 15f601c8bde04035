package measure

import (
	"math"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/sample"
)

var t0 = time.Date(2026, 12, 2, 4, 0, 0, 0, time.UTC)

func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// tick is one publisher answer: the current position, one slot "s" served
// by walsender 10 and confirmed at conf, the walsender's sent and flush.
func tick(sec float64, current, sent, flush, conf lsn.LSN) sample.Tick {
	return sample.Tick{At: at(sec), Reads: []sample.Read{
		{Node: sample.PublisherNode, OK: true, CurrentLSN: current,
			Slots:   []sample.Slot{{Name: "s", Active: true, ActivePID: 10, ConfirmedFlush: conf}},
			Senders: []sample.Sender{{PID: 10, Sent: sent, Flush: flush}}},
		{Node: sample.SubscriberNode, OK: true, Subs: []sample.Sub{{Name: "s", Slot: "s", Enabled: true, WorkerPID: 20}}}}}
}

// Rates are each position's advance over the window of the ticks the
// publisher answered; the lag splits at the window's end by position.
func TestRatesAndLagSplit(t *testing.T) {
	rec := &sample.Recording{Ticks: []sample.Tick{
		tick(0, 1000e6, 900e6, 850e6, 800e6),
		{At: at(5)}, // the publisher did not answer: not a tick of the window
		tick(10, 1100e6, 960e6, 940e6, 900e6),
	}}
	rec.Ticks[1].Edit(sample.PublisherNode).Slots = rec.Ticks[0].Read(sample.PublisherNode).Slots
	s := Summarise(rec, Filter{})
	if s.Ticks != 2 || s.WindowS != 10 {
		t.Fatalf("ticks %d window %v, want 2 ticks over 10 s", s.Ticks, s.WindowS)
	}
	for name, c := range map[string][2]float64{
		"generated": {s.Generated, 10e6},
		"consumed":  {s.Consumed, 10e6},
		"decoded":   {s.Decoded, 6e6},
		"progress":  {s.Progress(), 10e6},
	} {
		if !near(c[0], c[1]) {
			t.Errorf("%s = %v B/s, want %v", name, c[0], c[1])
		}
	}
	want := Lag{Total: 200e6, NotYetSent: 140e6, SentNotFlushed: 20e6, FlushedNotConfd: 40e6,
		BeforeSentShare: 0.7, MaxSentMinusFlush: 50e6, Start: 200e6}
	if s.Lag != want {
		t.Errorf("lag %+v, want %+v", s.Lag, want)
	}
}

// The slowest selected slot sets the confirmed rate; a filter leaves the
// other slots out; without a walsender everything is not yet sent.
func TestSlotsFilterAndMissingWalsender(t *testing.T) {
	two := func(sec float64, current, fast, slow lsn.LSN) sample.Tick {
		return sample.Tick{At: at(sec), Reads: []sample.Read{{Node: sample.PublisherNode, OK: true, CurrentLSN: current,
			Slots: []sample.Slot{{Name: "fast", ConfirmedFlush: fast}, {Name: "slow", ConfirmedFlush: slow}}}}}
	}
	rec := &sample.Recording{Ticks: []sample.Tick{two(0, 100e6, 90e6, 10e6), two(4, 140e6, 130e6, 14e6)}}
	all := Summarise(rec, Filter{})
	if !near(all.Consumed, 1e6) || all.Lag.Total != 126e6 || all.Lag.NotYetSent != 126e6 || all.Lag.BeforeSentShare != 1 {
		t.Errorf("both slots: consumed %v lag %+v, want the slow slot's 1 MB/s and 126 MB all not yet sent", all.Consumed, all.Lag)
	}
	if all.Decoded != 0 {
		t.Errorf("decoded %v without a walsender, want 0", all.Decoded)
	}
	fast := Summarise(rec, Filter{Slots: map[string]bool{"fast": true}})
	if !near(fast.Consumed, 10e6) || fast.Lag.Total != 10e6 {
		t.Errorf("fast only: consumed %v lag %d, want 10 MB/s and 10 MB", fast.Consumed, fast.Lag.Total)
	}
	if one := Summarise(&sample.Recording{Ticks: rec.Ticks[:1]}, Filter{}); one.Ticks != 1 || one.Walsender.CPUShare != -1 || one.Generated != 0 {
		t.Errorf("one tick: %+v, want nothing measured", one)
	}
}

// CPU and run queue are each process's counter deltas over the time it was
// seen; processes seen at once add up, a replacement is not diluted by the
// time before it existed. Wait shares count the probes between the first
// and the last tick, per side and pid, no event being "CPU".
func TestProcessSharesAndProbes(t *testing.T) {
	ticks := []sample.Tick{tick(0, 1, 1, 1, 1), tick(2, 1, 1, 1, 1), tick(4, 1, 1, 1, 1)}
	ticks[0].Procs = []sample.ProcStat{
		{Side: sample.Publisher, PID: 10, CPUNs: 0, RunqNs: 0},
		{Side: sample.Subscriber, PID: 20, CPUNs: 5e9, RunqNs: 1e9},
	}
	ticks[1].Procs = []sample.ProcStat{
		{Side: sample.Publisher, PID: 10, CPUNs: 1e9, RunqNs: 2e8},
		{Side: sample.Subscriber, PID: 20, CPUNs: 6e9, RunqNs: 1e9},
	}
	// Walsender 10 exits; 11 replaces it for the second half.
	ticks[2].Read(sample.PublisherNode).Slots[0].ActivePID = 11
	ticks[2].Read(sample.PublisherNode).Senders[0].PID = 11
	ticks[2].Procs = []sample.ProcStat{
		{Side: sample.Subscriber, PID: 20, CPUNs: 7e9, RunqNs: 1.4e9},
	}
	ticks[1].Procs = append(ticks[1].Procs, sample.ProcStat{Side: sample.Publisher, PID: 11, CPUNs: 0})
	ticks[2].Procs = append(ticks[2].Procs, sample.ProcStat{Side: sample.Publisher, PID: 11, CPUNs: 1.8e9})
	probe := func(sec float64, side string, w ...sample.Wait) sample.Probe {
		return sample.Probe{At: at(sec), Side: side, Waits: w}
	}
	rec := &sample.Recording{Nodes: sample.PairNodes(sample.Server{}, &sample.Server{}), Ticks: ticks, Probes: []sample.Probe{
		probe(-1, sample.Subscriber, sample.Wait{PID: 20, Type: "IO", Event: "DataFileRead"}), // before the window
		probe(1, sample.Subscriber, sample.Wait{PID: 20}, sample.Wait{PID: 99, Type: "Lock", Event: "relation"}),
		probe(2, sample.Subscriber, sample.Wait{PID: 20, Type: "IO", Event: "DataFileRead"}),
		probe(3, sample.Subscriber, sample.Wait{PID: 20, Type: "IO", Event: "DataFileRead"}),
		probe(3, sample.Publisher, sample.Wait{PID: 20, Type: "Client", Event: "WalSenderWriteData"}), // another server's pid 20
		probe(4, sample.Subscriber, sample.Wait{PID: 20, Type: "Activity", Event: "LogicalApplyMain"}),
		probe(5, sample.Subscriber, sample.Wait{PID: 20, Type: "IO", Event: "DataFileRead"}), // after it
	}}
	s := Summarise(rec, Filter{})
	ap := s.Apply
	if ap.Count != 1 || !near(ap.CPUShare, 0.5) || !near(ap.RunqueueShare, 0.1) {
		t.Errorf("apply count %d cpu %v runq %v, want 1, 0.5 and 0.1", ap.Count, ap.CPUShare, ap.RunqueueShare)
	}
	if ap.Probes != 4 || !near(ap.Share("datafileread"), 0.5) || !near(ap.WaitShares[CPUEvent], 0.25) || !near(ap.TypeShare("IO", "Activity"), 0.75) {
		t.Errorf("apply probes %d waits %v types %v, want 4 probes: DataFileRead 1/2, CPU 1/4, IO+Activity 3/4", ap.Probes, ap.WaitShares, ap.TypeShares)
	}
	if top, share := ap.Top(); top != "DataFileRead" || !near(share, 0.5) {
		t.Errorf("top %s %v, want DataFileRead at 0.5", top, share)
	}
	// Walsenders 10 (0-2 s, 1 s of CPU) and 11 (2-4 s, 1.8 s): 2.8 s of
	// CPU over the 4 s they covered.
	ws := s.Walsender
	if ws.Count != 2 || !near(ws.CPUShare, 0.7) || !near(ws.RunqueueShare, 0.05) {
		t.Errorf("walsenders count %d cpu %v runq %v, want 2, 0.7 and 0.05", ws.Count, ws.CPUShare, ws.RunqueueShare)
	}
}

// Parallel apply workers are measured one by one, busiest first.
func TestParallelWorkersBusiestFirst(t *testing.T) {
	ticks := []sample.Tick{tick(0, 1, 1, 1, 1), tick(10, 1, 1, 1, 1)}
	for i := range ticks {
		ticks[i].Read(sample.SubscriberNode).Subs[0].ParallelWorkers = []int{31, 32}
	}
	ticks[0].Procs = []sample.ProcStat{{Side: sample.Subscriber, PID: 31}, {Side: sample.Subscriber, PID: 32}}
	ticks[1].Procs = []sample.ProcStat{{Side: sample.Subscriber, PID: 31, CPUNs: 2e9}, {Side: sample.Subscriber, PID: 32, CPUNs: 9e9}}
	s := Summarise(&sample.Recording{Ticks: ticks}, Filter{})
	if len(s.Parallel) != 2 || s.Parallel[0].PID != 32 || !near(s.Parallel[0].CPUShare, 0.9) || s.Parallel[1].PID != 31 {
		t.Errorf("parallel %+v, want pid 32 (0.9 of a core) before 31", s.Parallel)
	}
}

func TestHostBusyAndCoveredTime(t *testing.T) {
	if got := hostBusy(&sample.HostStat{BusyNs: 1e9, TotalNs: 4e9}, &sample.HostStat{BusyNs: 2e9, TotalNs: 8e9}); !near(got, 0.25) {
		t.Errorf("host busy %v, want 0.25", got)
	}
	if got := hostBusy(&sample.HostStat{TotalNs: 4e9}, &sample.HostStat{TotalNs: 4e9}); got != -1 {
		t.Errorf("host busy over no time %v, want -1", got)
	}
	if got := hostBusy(nil, &sample.HostStat{TotalNs: 4e9}); got != -1 {
		t.Errorf("host busy without a first sample %v, want -1", got)
	}
	spans := map[int][2]float64{1: {0, 4}, 2: {2, 6}, 3: {8, 9}, 4: {5, 5}}
	got := covered(spans, func(s [2]float64) (time.Time, time.Time) { return at(s[0]), at(s[1]) })
	if got != 7*time.Second {
		t.Errorf("covered %v, want 7s: [0,6] and [8,9]", got)
	}
}

func TestTickLagIsOneSlotAtOneTick(t *testing.T) {
	tk := tick(0, 500, 400, 300, 100)
	tk.Edit(sample.PublisherNode).Slots = append(tk.Read(sample.PublisherNode).Slots, sample.Slot{Name: "other", ConfirmedFlush: 1})
	want := Lag{Total: 400, NotYetSent: 100, SentNotFlushed: 100, FlushedNotConfd: 200, BeforeSentShare: 0.25, MaxSentMinusFlush: 100, Start: 400}
	if got := TickLag(tk, "s"); got != want {
		t.Errorf("TickLag %+v, want %+v", got, want)
	}
}

// A publisher restarted inside the window reads its slot's confirmed
// position from disk, behind where it was: no negative rate.
func TestAConfirmedPositionThatWentBackIsNoNegativeRate(t *testing.T) {
	rec := &sample.Recording{Ticks: []sample.Tick{tick(0, 100e6, 90e6, 90e6, 90e6), tick(6, 101e6, 80e6, 80e6, 80e6)}}
	s := Summarise(rec, Filter{})
	if !s.PositionWentBack || s.Consumed != 0 {
		t.Errorf("position went back %v, consumed %v B/s: want true and 0", s.PositionWentBack, s.Consumed)
	}
}
