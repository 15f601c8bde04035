package topology

import "fmt"

// Role is what a node does in replication. The zero value is no role.
type Role string

// The roles a node can play.
const (
	// Publisher is a server that decodes its WAL for logical replication
	// slots (the walsenders of its subscribers or consumers).
	Publisher Role = "publisher"
	// Subscriber is a PostgreSQL server that applies a publisher's changes
	// through its subscriptions.
	Subscriber Role = "subscriber"
	// Primary is a server whose WAL physical standbys stream and replay
	// (a standby that feeds a cascaded standby is its primary too).
	Primary Role = "primary"
	// Standby is a physical replica streaming and replaying a server's WAL.
	Standby Role = "standby"
	// Consumer is a reader of a logical slot that is not a PostgreSQL
	// subscriber (Debezium, pg_recvlogical, ...): lagscope sees it only
	// through the source's walsender and slot.
	Consumer Role = "consumer"
)

// Roles are the known roles, in the order reports list nodes.
var Roles = []Role{Publisher, Subscriber, Primary, Standby, Consumer}

// Valid says whether r is one of Roles.
func (r Role) Valid() bool {
	for _, k := range Roles {
		if r == k {
			return true
		}
	}
	return false
}

// NodeID names a node within one observed topology ("publisher",
// "subscriber" for a pair; a user's name for each server otherwise). It is
// what recordings write in a probe's, gap's or process's "side".
type NodeID string

// Node is one observed node.
type Node struct {
	ID   NodeID `json:"id"`
	Role Role   `json:"role"`
}

// Validate says what is wrong with n, if anything.
func (n Node) Validate() error {
	switch {
	case n.ID == "":
		return fmt.Errorf("a node has no id")
	case !n.Role.Valid():
		return fmt.Errorf("node %q has role %q: want one of %v", n.ID, n.Role, Roles)
	}
	return nil
}

// Path is one flow of changes, from the node that produces them (Source:
// a publisher, or the primary of a standby) to the node that receives them
// (Consumer). Slot names the replication slot the path reads, "" when it
// uses none or it is not known.
type Path struct {
	Source   NodeID `json:"source"`
	Consumer NodeID `json:"consumer"`
	Slot     string `json:"slot,omitempty"`
}

// Topology is a set of nodes and the paths between them.
type Topology struct {
	Nodes []Node `json:"nodes"`
	Paths []Path `json:"paths,omitempty"`
}

// Node returns the node named id.
func (t Topology) Node(id NodeID) (Node, bool) {
	for _, n := range t.Nodes {
		if n.ID == id {
			return n, true
		}
	}
	return Node{}, false
}

// WithRole returns the nodes of role r, in their order.
func (t Topology) WithRole(r Role) []Node {
	var out []Node
	for _, n := range t.Nodes {
		if n.Role == r {
			out = append(out, n)
		}
	}
	return out
}

// Validate checks that node ids are unique, roles known, and that every
// path joins two different nodes of the topology.
func (t Topology) Validate() error {
	seen := map[NodeID]bool{}
	for _, n := range t.Nodes {
		if err := n.Validate(); err != nil {
			return err
		}
		if seen[n.ID] {
			return fmt.Errorf("node %q is listed twice", n.ID)
		}
		seen[n.ID] = true
	}
	for _, p := range t.Paths {
		switch {
		case !seen[p.Source]:
			return fmt.Errorf("path %s -> %s: no node %q", p.Source, p.Consumer, p.Source)
		case !seen[p.Consumer]:
			return fmt.Errorf("path %s -> %s: no node %q", p.Source, p.Consumer, p.Consumer)
		case p.Source == p.Consumer:
			return fmt.Errorf("path %s -> %s joins a node to itself", p.Source, p.Consumer)
		}
	}
	return nil
}

// Pair is the topology of 'lagscope diagnose': a publisher, and a
// subscriber when subscriber is true (without one, the publisher's slots
// feed consumers lagscope does not connect to). The nodes' ids are their
// roles' names.
func Pair(subscriber bool) Topology {
	t := Topology{Nodes: []Node{{ID: NodeID(Publisher), Role: Publisher}}}
	if subscriber {
		t.Nodes = append(t.Nodes, Node{ID: NodeID(Subscriber), Role: Subscriber})
		t.Paths = []Path{{Source: NodeID(Publisher), Consumer: NodeID(Subscriber)}}
	}
	return t
}

// Sources returns the distinct source nodes of the paths, in the order
// they first appear: the nodes a sampler reads once however many paths
// start there.
func (t Topology) Sources() []NodeID {
	var out []NodeID
	seen := map[NodeID]bool{}
	for _, p := range t.Paths {
		if !seen[p.Source] {
			seen[p.Source] = true
			out = append(out, p.Source)
		}
	}
	return out
}
