package sample

import (
	"fmt"
	"time"

	"github.com/lagscope/lagscope/internal/sqltext"

	"github.com/lagscope/lagscope/internal/topology"
)

// NodeWindow is what one sampling run read of any set of nodes, each read
// once however many paths it serves: the exporter samples a publisher once
// for all its subscribers and cuts each pair's Recording out of the window
// (Pair). It is also the content of a recording's file (version 11+).
type NodeWindow struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	Nodes []Node    `json:"nodes"`
	Ticks []Tick    `json:"ticks"`
	// Probes, Gaps and the ticks' Procs and ReadErrors name their node in
	// Side.
	Probes []Probe `json:"probes"`
	Gaps   []Gap   `json:"gaps,omitempty"`
	// Failed are the nodes RunNodes could not open, with why: left out of
	// the window (not written to a file).
	Failed map[topology.NodeID]error `json:"-"`
}

// node returns the window's node id.
func (w *NodeWindow) node(id topology.NodeID) (*Node, bool) {
	for i := range w.Nodes {
		if w.Nodes[i].ID == id {
			return &w.Nodes[i], true
		}
	}
	return nil, false
}

// host is the host CPU read at this tick for a node before (nil when none
// was): every node lagscope reads /proc for is on this host.
func (t *Tick) host() *HostStat {
	for _, r := range t.Reads {
		if r.Host != nil {
			return r.Host
		}
	}
	return nil
}

// Pair cuts the recording of the path from the publisher node pub to the
// subscriber node sub ("": the publisher alone) out of the window: their
// servers and reads, their processes, probes, gaps and failed reads, named
// "publisher" and "subscriber" as in every Recording. The pair's reads
// share their slices with the window's (read them, do not change them).
func (w *NodeWindow) Pair(pub, sub topology.NodeID) (*Recording, error) {
	return w.cut([]pathEnd{{pub, PublisherNode, topology.Publisher}, {sub, SubscriberNode, topology.Subscriber}}, true)
}

// Physical cuts the recording of the physical path from the primary node
// primary to the standby node standby out of the window, either "" when
// not observed (not both): their servers and reads, processes, probes,
// gaps and failed reads, named "primary" and "standby" (PrimaryNode,
// StandbyNode). The reads share their slices with the window's.
func (w *NodeWindow) Physical(primary, standby topology.NodeID) (*Recording, error) {
	if primary == "" && standby == "" {
		return nil, fmt.Errorf("a physical path needs a primary node or a standby node")
	}
	return w.cut([]pathEnd{{primary, PrimaryNode, topology.Primary}, {standby, StandbyNode, topology.Standby}}, false)
}

// pathEnd is one node of a path cut out of a window: the window's node id
// (""; not observed), the id and role it has in the recording.
type pathEnd struct {
	id, as topology.NodeID
	role   topology.Role
}

// cut is the recording of the nodes ends (an end whose id is "" left out;
// the first one required when first is set) out of the window.
func (w *NodeWindow) cut(ends []pathEnd, first bool) (*Recording, error) {
	rec := &Recording{Version: RecordingVersion, Start: w.Start, End: w.End}
	side := map[string]topology.NodeID{}
	for i, c := range ends {
		if c.id == "" && (i > 0 || !first) {
			continue
		}
		if err := w.Failed[c.id]; err != nil {
			return nil, err
		}
		n, ok := w.node(c.id)
		if !ok || n.Role != c.role {
			return nil, fmt.Errorf("the window has no %s node %q", c.role, c.id)
		}
		rec.Nodes = append(rec.Nodes, Node{Node: topology.Node{ID: c.as, Role: c.role}, Server: n.Server})
		side[string(c.id)] = c.as
	}
	rec.Ticks = make([]Tick, len(w.Ticks))
	for i, nt := range w.Ticks {
		t := Tick{At: nt.At}
		for _, c := range ends {
			for _, r := range nt.Reads {
				if as := c.as; side[string(r.Node)] == as {
					r.Node = as
					t.Reads = append(t.Reads, r)
				}
			}
		}
		for _, p := range nt.Procs {
			if as, ok := side[p.Side]; ok {
				p.Side = string(as)
				t.Procs = append(t.Procs, p)
			}
		}
		for _, e := range nt.ReadErrors {
			if as, ok := side[e.Side]; ok {
				e.Side = string(as)
				t.ReadErrors = append(t.ReadErrors, e)
			}
		}
		rec.Ticks[i] = t
	}
	for _, p := range w.Probes {
		if as, ok := side[p.Side]; ok {
			p.Side = string(as)
			rec.Probes = append(rec.Probes, p)
		}
	}
	for _, g := range w.Gaps {
		if as, ok := side[g.Side]; ok {
			g.Side = string(as)
			rec.Gaps = append(rec.Gaps, g)
		}
	}
	return rec, nil
}

// window is the recording as a NodeWindow (its nodes and per-node reads,
// shared with the recording).
func (r *Recording) window() NodeWindow {
	return NodeWindow{Start: r.Start, End: r.End, Nodes: r.Nodes, Ticks: r.Ticks, Probes: r.Probes, Gaps: r.Gaps}
}

// normalizeQueries replaces the constants in the query text the tick
// captured with placeholders (sqltext.Normalize).
func (t *Tick) normalizeQueries() {
	for i := range t.Reads {
		r := &t.Reads[i]
		for j := range r.Blockers {
			r.Blockers[j].Query = sqltext.Normalize(r.Blockers[j].Query)
		}
		for j := range r.Xacts {
			r.Xacts[j].Query = sqltext.Normalize(r.Xacts[j].Query)
		}
		if r.Standby != nil {
			for j := range r.Standby.Holders {
				r.Standby.Holders[j].Query = sqltext.Normalize(r.Standby.Holders[j].Query)
			}
		}
	}
}
