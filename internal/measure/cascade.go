package measure

import (
	"slices"

	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/sample"
)

// Downstream is a cascaded standby: one the observed standby feeds itself,
// from its own walsender (the standby's pg_stat_replication). Its
// positions are those it reported to the standby; the standby's own are
// what it could send it.
type Downstream struct {
	// Name is the cascaded standby's application_name.
	Name string `json:"name"`
	// Sender is the standby's walsender row for it at the last tick that
	// listed it.
	Sender sample.Sender `json:"sender"`
	// Received is the observed standby's receive position at that tick
	// (pg_last_wal_receive_lsn, or its replay position when it is ahead:
	// what a cascading walsender can send), Current the primary's WAL
	// position then (0: the primary not observed or not answering).
	Received lsn.LSN `json:"standby_received_lsn"`
	Current  lsn.LSN `json:"primary_current_lsn,omitempty"`
	// Replayed is the rate of its replay_lsn over the ticks that listed
	// it, bytes/s (0 when listed once, or not moving); SpanS those ticks'
	// span, seconds.
	Replayed float64 `json:"replayed_bytes_per_s"`
	SpanS    float64 `json:"span_s"`
	// Walsender is the standby's walsender feeding it.
	Walsender Proc `json:"walsender"`
}

// downstreams reads the cascaded standbys the standby node feeds, by
// application_name, from the standby's physical walsenders at each tick.
func downstreams(rec *sample.Recording, ticks []sample.Tick) []Downstream {
	type seen struct {
		d        Downstream
		first    sample.Sender
		from, to sample.Tick
	}
	byName := map[string]*seen{}
	var names []string
	roles := map[Backend]BackendRole{}
	for _, t := range ticks {
		sb := t.Read(sample.StandbyNode)
		if !sb.OK || sb.Standby == nil {
			continue
		}
		pr := t.Read(sample.PrimaryNode)
		for _, sn := range sb.Senders {
			if !sn.Physical {
				continue
			}
			roles[Backend{string(sample.StandbyNode), sn.PID}] = BackendRole{Role: sample.RoleWalsender, Slot: sn.Slot}
			s, ok := byName[sn.AppName]
			if !ok {
				s = &seen{first: sn, from: t}
				byName[sn.AppName] = s
				names = append(names, sn.AppName)
			}
			s.d.Name, s.d.Sender, s.to = sn.AppName, sn, t
			s.d.Received = max(sb.Standby.Receive, sb.Standby.Replay)
			s.d.Current = 0
			if pr.OK {
				s.d.Current = pr.CurrentLSN
			}
		}
	}
	slices.Sort(names)
	var out []Downstream
	for _, n := range names {
		s := byName[n]
		d := s.d
		if span := s.to.At.Sub(s.from.At).Seconds(); span > 0 {
			d.SpanS = span
			d.Replayed = sample.Advance(d.Sender.Replay, s.first.Replay) / span
		}
		pids := map[Backend]BackendRole{}
		for b, r := range roles {
			if b.PID == d.Sender.PID || b.PID == s.first.PID {
				pids[b] = r
			}
		}
		d.Walsender = procStats(rec, ticks, pids, sample.RoleWalsender, string(sample.StandbyNode))
		out = append(out, d)
	}
	return out
}
