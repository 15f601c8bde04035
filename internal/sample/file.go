package sample

import (
	"encoding/json"
	"fmt"

	"github.com/lagscope/lagscope/internal/topology"
)

// NodesVersion is the first recording version written as nodes with roles
// and per-node reads (file): older versions are read in the shape they were
// written in (the Recording's own fields) and stay readable.
const NodesVersion = 11

// file is a recording's JSON from version 11 on: a list of nodes with
// their roles and servers, and each tick's reads keyed by node.
type file struct {
	Version int `json:"version"`
	// SampledVersion is the version of the lagscope that sampled the
	// recording when it was older than the file's (a recording re-saved
	// after it was read): what it read is what that version read (the
	// conflict counters from 8 on, for one). Absent when they are equal.
	SampledVersion int `json:"sampled_version,omitempty"`
	// NodeWindow is the nodes, their reads by tick, the probes and gaps.
	NodeWindow
	Paths      []topology.Path `json:"paths,omitempty"`
	Setup      json.RawMessage `json:"setup,omitempty"`
	SetupError string          `json:"setup_error,omitempty"`
}

// MarshalJSON writes the recording as version RecordingVersion (nodes and
// per-node reads), whatever version it was read as.
func (r Recording) MarshalJSON() ([]byte, error) {
	return json.Marshal(r.file())
}

// UnmarshalJSON reads any version: up to 10 in their own shape, from 11 on
// as nodes and per-node reads.
func (r *Recording) UnmarshalJSON(b []byte) error {
	var v struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch {
	case v.Version < NodesVersion:
		var l legacy
		if err := json.Unmarshal(b, &l); err != nil {
			return err
		}
		*r = l.recording()
		return nil
	case v.Version > RecordingVersion:
		// A shape this lagscope does not know: ReadRecording asks for an
		// upgrade.
		*r = Recording{Version: v.Version}
		return nil
	}
	var f file
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	return f.recording(r)
}

// file is the recording in the shape of RecordingVersion.
func (r Recording) file() file {
	f := file{Version: RecordingVersion, NodeWindow: r.window(), Paths: r.Topology().Paths, Setup: r.Setup, SetupError: r.SetupError}
	if r.Version != RecordingVersion {
		f.SampledVersion = r.Version
	}
	return f
}

// pathNodes are the nodes a recording can hold, each at most once under
// its role's name: a pair's (version 11+) and a physical path's (12+).
var pathNodes = []topology.Node{
	{ID: PublisherNode, Role: topology.Publisher},
	{ID: SubscriberNode, Role: topology.Subscriber},
	{ID: PrimaryNode, Role: topology.Primary},
	{ID: StandbyNode, Role: topology.Standby},
}

// isPathNode says whether id is one of pathNodes'.
func isPathNode(id topology.NodeID) bool {
	for _, n := range pathNodes {
		if n.ID == id {
			return true
		}
	}
	return false
}

// errPath is why a file's nodes are not one path this lagscope judges.
const errPath = "this lagscope reads recordings of one path: a publisher node %q with at most one subscriber node %q, or a primary node %q and/or a standby node %q"

// checkNodes says whether the nodes are one path: a publisher and at most
// one subscriber, or a primary, a standby or both (from version 12), each
// under its role's name.
func checkNodes(version int, nodes []Node) error {
	has := map[topology.Role]bool{}
	for _, n := range nodes {
		if err := n.Node.Validate(); err != nil {
			return err
		}
		ok := false
		for _, p := range pathNodes {
			ok = ok || n.Node == p
		}
		if !ok || has[n.Role] || physicalRole(n.Role) && version < 12 || physicalRole(n.Role) != physicalRole(nodes[0].Role) {
			return fmt.Errorf("node %q (%s): "+errPath, n.ID, n.Role, PublisherNode, SubscriberNode, PrimaryNode, StandbyNode)
		}
		has[n.Role] = true
	}
	switch {
	case len(nodes) == 0:
		return fmt.Errorf("no node: "+errPath, PublisherNode, SubscriberNode, PrimaryNode, StandbyNode)
	case has[topology.Subscriber] && !has[topology.Publisher]:
		return fmt.Errorf("node %q (%s) without its publisher: "+errPath, SubscriberNode, topology.Subscriber, PublisherNode, SubscriberNode, PrimaryNode, StandbyNode)
	}
	return nil
}

// physicalRole says whether a node of role r is on a physical path.
func physicalRole(r topology.Role) bool { return r == topology.Primary || r == topology.Standby }

// recording fills r from the file, checking that its nodes are one path
// this lagscope can judge (checkNodes).
func (f *file) recording(r *Recording) error {
	*r = Recording{Version: f.Version, Start: f.Start, End: f.End, Probes: f.Probes, Gaps: f.Gaps, Setup: f.Setup, SetupError: f.SetupError}
	if f.SampledVersion != 0 {
		r.Version = f.SampledVersion
	}
	if err := checkNodes(f.Version, f.Nodes); err != nil {
		return err
	}
	r.Nodes = f.Nodes
	r.Ticks = make([]Tick, len(f.Ticks))
	for i, ft := range f.Ticks {
		t := Tick{At: ft.At, Procs: ft.Procs, ReadErrors: ft.ReadErrors}
		for _, rd := range ft.Reads {
			// An empty read of a node the path could hold but the file does
			// not list says nothing: left out.
			if isPathNode(rd.Node) && r.Server(rd.Node) == nil && rd.empty() {
				continue
			}
			if t.hasRead(rd.Node) {
				return fmt.Errorf("tick %d reads node %q twice", i, rd.Node)
			}
			t.Reads = append(t.Reads, rd)
		}
		if err := r.checkRoles(&t); err != nil {
			return fmt.Errorf("tick %d: %w", i, err)
		}
		r.Ticks[i] = t
	}
	return nil
}

// hasRead says whether the tick holds a read of node id.
func (t *Tick) hasRead(id topology.NodeID) bool {
	for _, r := range t.Reads {
		if r.Node == id {
			return true
		}
	}
	return false
}
