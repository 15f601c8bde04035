package measure

import (
	"time"

	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/sample"
)

// Series is one path's time series over a window: what a chart draws.
type Series struct {
	// Points are the path at every tick the publisher answered.
	Points []Point `json:"points"`
	// Procs are each role's figures between consecutive ticks.
	Procs []ProcPoint `json:"procs,omitempty"`
	// Hosts are the hosts' busy shares between consecutive ticks.
	Hosts []HostPoint `json:"hosts,omitempty"`
}

// Point is the path at one tick: byte positions (pg_lsn - '0/0'; 0 when
// unknown) and the lag split as Lag splits it.
type Point struct {
	At              time.Time `json:"at"`
	Current         lsn.LSN   `json:"current_lsn"`
	Sent            lsn.LSN   `json:"sent_lsn,omitempty"`
	Flush           lsn.LSN   `json:"flush_lsn,omitempty"`
	Confirmed       lsn.LSN   `json:"confirmed_flush_lsn,omitempty"`
	NotYetSent      int64     `json:"not_yet_sent_bytes"`
	SentNotFlushed  int64     `json:"sent_not_flushed_bytes"`
	FlushedNotConfd int64     `json:"flushed_not_confirmed_bytes"`
}

// ProcPoint is one role (sample.RoleWalsender, RoleApply, RoleParallel) between
// two ticks, At being the later: CPU and run-queue shares of one core (-1
// without /proc) and wait-event shares of the probes in between ("CPU":
// none).
type ProcPoint struct {
	At            time.Time          `json:"at"`
	Role          string             `json:"role"`
	CPUShare      float64            `json:"cpu_share"`
	RunqueueShare float64            `json:"runqueue_share"`
	WaitShares    map[string]float64 `json:"wait_shares,omitempty"`
}

// HostPoint is the hosts' busy share between two ticks (-1 when /proc did
// not show that host).
type HostPoint struct {
	At         time.Time `json:"at"`
	Publisher  float64   `json:"publisher_busy"`
	Subscriber float64   `json:"subscriber_busy"`
}

// SeriesOf derives slot's time series from rec. It is pure.
func SeriesOf(rec *sample.Recording, slot string) Series {
	f := Filter{Slots: map[string]bool{slot: true}}
	ticks := okTicks(rec.Ticks)
	roles := Roles(ticks, f)
	var s Series
	for i, t := range ticks {
		l := lagAt(t, t, []sample.Tick{t}, f)
		p := Point{At: t.At, Current: t.Read(sample.PublisherNode).CurrentLSN, NotYetSent: l.NotYetSent, SentNotFlushed: l.SentNotFlushed, FlushedNotConfd: l.FlushedNotConfd}
		p.Sent, p.Flush = senderPos(t, f)
		p.Confirmed, _ = minConfirmed(t, f)
		s.Points = append(s.Points, p)
		if i == 0 {
			continue
		}
		pair := ticks[i-1 : i+1]
		for _, r := range []struct{ role, side string }{
			{sample.RoleWalsender, sample.Publisher}, {sample.RoleApply, sample.Subscriber}, {sample.RoleParallel, sample.Subscriber}} {
			if !hasRole(roles, r.role) {
				continue
			}
			ps := procStats(rec, pair, roles, r.role, r.side)
			s.Procs = append(s.Procs, ProcPoint{At: t.At, Role: r.role, CPUShare: ps.CPUShare, RunqueueShare: ps.RunqueueShare, WaitShares: ps.WaitShares})
		}
		s.Hosts = append(s.Hosts, HostPoint{At: t.At, Publisher: hostBusy(pair[0].Read(sample.PublisherNode).Host, t.Read(sample.PublisherNode).Host),
			Subscriber: hostBusy(pair[0].Read(sample.SubscriberNode).Host, t.Read(sample.SubscriberNode).Host)})
	}
	return s
}

func hasRole(roles map[Backend]BackendRole, role string) bool {
	for _, r := range roles {
		if r.Role == role {
			return true
		}
	}
	return false
}
