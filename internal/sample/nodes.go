package sample

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/topology"
)

// The nodes of the observed pair: their ids are the sides' names, which is
// what a probe's, gap's, process's and read error's Side holds.
const (
	PublisherNode  = topology.NodeID(Publisher)
	SubscriberNode = topology.NodeID(Subscriber)
)

// Node is one observed node and the server it runs: what a recording
// (version 11+) lists under "nodes".
type Node struct {
	topology.Node
	Server
}

// Read is what one node answered at one tick: the per-node part of a
// Tick. Which fields a node fills depends on its role (roleSources): a
// publisher's slots, walsenders and open transactions, a subscriber's
// subscriptions, lock blockers, table copies and apply work; every node
// its WAL position, host CPU and CPU bursts.
type Read struct {
	Node topology.NodeID `json:"node"`
	// OK says whether the node answered this tick.
	OK bool `json:"ok"`
	// CurrentLSN is the node's own WAL position (pg_current_wal_lsn; 0
	// when unknown).
	CurrentLSN lsn.LSN `json:"current_lsn,omitempty"`
	// Host is the cumulative CPU time of the node's host (nil when /proc
	// is not usable for it).
	Host *HostStat `json:"host,omitempty"`
	// WALDisk is the space of the file system holding the node's pg_wal
	// (a publisher on this host).
	WALDisk *DiskStat `json:"wal_disk,omitempty"`
	// Burst are the durations in milliseconds of the pieces of a CPU
	// burst run on the node at this tick (see cpuburst.go).
	Burst []float64 `json:"burst_ms,omitempty"`
	// Active are the node's active client backends (nil: not read, as in
	// recordings before lagscope read them).
	Active []ActiveBackend `json:"active,omitempty"`
	// Load is the CPU the host's processes used on the CPUs of the node's
	// replication processes since the window's first tick (the last tick
	// of a node on this host; nil: not read).
	Load *HostLoad `json:"host_load,omitempty"`

	// A publisher's reads.
	Slots   []Slot     `json:"slots,omitempty"`
	Senders []Sender   `json:"senders,omitempty"`
	Xacts   []OpenXact `json:"xacts,omitempty"`

	// A subscriber's reads.
	Subs     []Sub          `json:"subs,omitempty"`
	Blockers []Blocker      `json:"blockers,omitempty"`
	Copies   []CopyProgress `json:"copies,omitempty"`
	Applied  *ApplyWork     `json:"applied,omitempty"`

	// A primary's reads: its walsenders are in Senders (the physical
	// ones, Sender.Physical), its physical slots here, and its WAL
	// counters (pg_stat_wal, 14+; nil before, and in recordings made
	// before lagscope read them).
	PhysicalSlots []Slot    `json:"physical_slots,omitempty"`
	WAL           *WALStats `json:"wal,omitempty"`
	// A standby's reads (its own walsenders, a cascaded standby's or a
	// logical slot's on it, in Senders).
	Standby *StandbyRead `json:"standby,omitempty"`
}

// empty says whether r holds nothing but its node's id.
func (r Read) empty() bool {
	return !r.OK && r.CurrentLSN == 0 && r.Host == nil && r.WALDisk == nil && r.Burst == nil && r.Active == nil && r.Load == nil &&
		r.Slots == nil && r.Senders == nil && r.Xacts == nil &&
		r.Subs == nil && r.Blockers == nil && r.Copies == nil && r.Applied == nil &&
		r.PhysicalSlots == nil && r.WAL == nil && r.Standby == nil
}

// hasBackends says whether the read saw replication backends of its node
// (a walsender, a subscription's apply worker, a standby's startup process
// or WAL receiver).
func (r Read) hasBackends() bool {
	for _, s := range r.Subs {
		if s.WorkerPID != 0 {
			return true
		}
	}
	if r.Standby != nil && (r.Standby.StartupPID != 0 || r.Standby.Receiver != nil && r.Standby.Receiver.PID != 0) {
		return true
	}
	return len(r.Senders) > 0
}

// PairNodes are the nodes of a pair: the publisher node with server pub,
// and the subscriber node with server sub when sub is not nil.
func PairNodes(pub Server, sub *Server) []Node {
	out := []Node{{Node: topology.Node{ID: PublisherNode, Role: topology.Publisher}, Server: pub}}
	if sub != nil {
		out = append(out, Node{Node: topology.Node{ID: SubscriberNode, Role: topology.Subscriber}, Server: *sub})
	}
	return out
}

// PhysicalNodes are the nodes of a physical path: the primary node
// (PrimaryNode) when primary is true, the standby node (StandbyNode) when
// standby is, in that order. RunPhysical samples them; RunNodes does with
// these nodes among others, and NodeWindow.Physical cuts their recording
// out of its window.
func PhysicalNodes(primary, standby bool) []topology.Node {
	var out []topology.Node
	if primary {
		out = append(out, topology.Node{ID: PrimaryNode, Role: topology.Primary})
	}
	if standby {
		out = append(out, topology.Node{ID: StandbyNode, Role: topology.Standby})
	}
	return out
}

// Topology is the recording's nodes and the path between them: the
// publisher's to the subscriber, or the primary's to the standby (none
// when one end is not observed).
func (r *Recording) Topology() topology.Topology {
	if r.Server(PublisherNode) != nil {
		return topology.Pair(r.Server(SubscriberNode) != nil)
	}
	var t topology.Topology
	for _, n := range r.Nodes {
		t.Nodes = append(t.Nodes, n.Node)
	}
	if r.Server(PrimaryNode) != nil && r.Server(StandbyNode) != nil {
		t.Paths = []topology.Path{{Source: PrimaryNode, Consumer: StandbyNode}}
	}
	return t
}

// Server is the description of node id's server (nil when the recording
// has no such node); the recording's own, to change in place.
func (r *Recording) Server(id topology.NodeID) *Server {
	for i := range r.Nodes {
		if r.Nodes[i].ID == id {
			return &r.Nodes[i].Server
		}
	}
	return nil
}

// Read is node id's part of the tick (only its Node set when the tick
// holds nothing of it).
func (t *Tick) Read(id topology.NodeID) Read {
	for _, r := range t.Reads {
		if r.Node == id {
			return r
		}
	}
	return Read{Node: id}
}

// Edit is node id's part of the tick, to change in place: added to the
// tick's reads when it holds nothing of the node.
func (t *Tick) Edit(id topology.NodeID) *Read {
	for i := range t.Reads {
		if t.Reads[i].Node == id {
			return &t.Reads[i]
		}
	}
	t.Reads = append(t.Reads, Read{Node: id})
	return &t.Reads[len(t.Reads)-1]
}

// checkRoles says which read of the tick holds the sources of a role its
// node does not have (a publisher's slots on a subscriber node, a
// subscriber's subscriptions on a publisher node, a standby's read on a
// primary node...), or a node the recording does not list. Walsenders are
// a publisher's, a primary's or a standby's (its own: a cascaded standby's,
// a logical slot's on it); the space of pg_wal a publisher's or a
// primary's.
func (r *Recording) checkRoles(t *Tick) error {
	for _, rd := range t.Reads {
		var role topology.Role
		for _, n := range r.Nodes {
			if n.ID == rd.Node {
				role = n.Role
			}
		}
		switch {
		case role == "":
			return fmt.Errorf("a tick reads node %q, which the recording does not list", rd.Node)
		case role != topology.Publisher && (rd.Slots != nil || rd.Xacts != nil),
			role != topology.Publisher && role != topology.Primary && rd.WALDisk != nil,
			role != topology.Publisher && role != topology.Primary && role != topology.Standby && rd.Senders != nil,
			role != topology.Subscriber && (rd.Subs != nil || rd.Blockers != nil || rd.Copies != nil || rd.Applied != nil),
			role != topology.Primary && rd.PhysicalSlots != nil,
			role != topology.Standby && rd.Standby != nil:
			return fmt.Errorf("node %q holds reads of the other role's sources", rd.Node)
		}
	}
	return nil
}

// Clone is a copy of the tick whose reads are its own: changing them
// (Edit) leaves t's alone. What the reads hold (slots, subscriptions...)
// is still shared.
func (t Tick) Clone() Tick {
	t.Reads = append([]Read(nil), t.Reads...)
	return t
}

// Clone is a copy of the recording whose nodes and ticks, with their
// reads, are its own: changing a server (Server) or a read (Edit) leaves
// r's alone.
func (r *Recording) Clone() *Recording {
	c := *r
	c.Nodes = append([]Node(nil), r.Nodes...)
	c.Ticks = make([]Tick, len(r.Ticks))
	for i, t := range r.Ticks {
		c.Ticks[i] = t.Clone()
	}
	return &c
}
