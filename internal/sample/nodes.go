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

	// A publisher's reads.
	Slots   []Slot     `json:"slots,omitempty"`
	Senders []Sender   `json:"senders,omitempty"`
	Xacts   []OpenXact `json:"xacts,omitempty"`

	// A subscriber's reads.
	Subs     []Sub          `json:"subs,omitempty"`
	Blockers []Blocker      `json:"blockers,omitempty"`
	Copies   []CopyProgress `json:"copies,omitempty"`
	Applied  *ApplyWork     `json:"applied,omitempty"`
}

// empty says whether r holds nothing but its node's id.
func (r Read) empty() bool {
	return !r.OK && r.CurrentLSN == 0 && r.Host == nil && r.WALDisk == nil && r.Burst == nil &&
		r.Slots == nil && r.Senders == nil && r.Xacts == nil &&
		r.Subs == nil && r.Blockers == nil && r.Copies == nil && r.Applied == nil
}

// hasBackends says whether the read saw replication backends of its node
// (a walsender, a subscription's apply worker).
func (r Read) hasBackends() bool {
	for _, s := range r.Subs {
		if s.WorkerPID != 0 {
			return true
		}
	}
	return len(r.Senders) > 0
}

// setServer sets node id's server (the publisher's or the subscriber's);
// false when the pair has no place for id.
func (r *Recording) setServer(id topology.NodeID, srv Server) bool {
	switch id {
	case PublisherNode:
		r.Publisher = srv
	case SubscriberNode:
		r.Subscriber = &srv
	default:
		return false
	}
	return true
}

// Nodes are the recording's nodes: the publisher, then the subscriber
// when one was observed.
func (r *Recording) Nodes() []Node {
	out := []Node{{Node: topology.Node{ID: PublisherNode, Role: topology.Publisher}, Server: r.Publisher}}
	if r.Subscriber != nil {
		out = append(out, Node{Node: topology.Node{ID: SubscriberNode, Role: topology.Subscriber}, Server: *r.Subscriber})
	}
	return out
}

// Topology is the recording's nodes and the path between them.
func (r *Recording) Topology() topology.Topology {
	return topology.Pair(r.Subscriber != nil)
}

// Server is the description of node id's server (nil when the recording
// has no such node).
func (r *Recording) Server(id topology.NodeID) *Server {
	switch id {
	case PublisherNode:
		return &r.Publisher
	case SubscriberNode:
		return r.Subscriber
	}
	return nil
}

// Read is node id's part of the tick (only its Node set when the tick
// holds nothing of it).
func (t *Tick) Read(id topology.NodeID) Read {
	switch id {
	case PublisherNode:
		return Read{Node: id, OK: t.PubOK, CurrentLSN: t.CurrentLSN, Host: t.PubHost, WALDisk: t.PubWALDisk, Burst: t.PubBurst,
			Slots: t.Slots, Senders: t.Senders, Xacts: t.Xacts}
	case SubscriberNode:
		return Read{Node: id, OK: t.SubOK, CurrentLSN: t.SubLSN, Host: t.SubHost, Burst: t.SubBurst,
			Subs: t.Subs, Blockers: t.Blockers, Copies: t.Copies, Applied: t.Applied}
	}
	return Read{Node: id}
}

// setRead stores r as its node's part of the tick; a read of a node the
// pair has no place for is an error, and so is a read of the other
// role's sources.
func (t *Tick) setRead(r Read) error {
	if r.Node == SubscriberNode && (r.WALDisk != nil || r.Slots != nil || r.Senders != nil || r.Xacts != nil) ||
		r.Node == PublisherNode && (r.Subs != nil || r.Blockers != nil || r.Copies != nil || r.Applied != nil) {
		return fmt.Errorf("node %q holds reads of the other role's sources", r.Node)
	}
	if !t.store(r) {
		return fmt.Errorf("a tick reads node %q, which the recording does not list", r.Node)
	}
	return nil
}

// store puts r in its node's fields of the tick; false when the pair has
// no place for its node.
func (t *Tick) store(r Read) bool {
	switch r.Node {
	case PublisherNode:
		t.PubOK, t.CurrentLSN, t.PubHost, t.PubWALDisk, t.PubBurst = r.OK, r.CurrentLSN, r.Host, r.WALDisk, r.Burst
		t.Slots, t.Senders, t.Xacts = r.Slots, r.Senders, r.Xacts
	case SubscriberNode:
		t.SubOK, t.SubLSN, t.SubHost, t.SubBurst = r.OK, r.CurrentLSN, r.Host, r.Burst
		t.Subs, t.Blockers, t.Copies, t.Applied = r.Subs, r.Blockers, r.Copies, r.Applied
	default:
		return false
	}
	return true
}
