// Package sample records what lagscope observes on a publisher and a
// subscriber, or on a primary and its physical standby: positions and
// counters every tick, wait events of the walsenders, logical replication
// workers, and a standby's startup process and WAL receiver at a fast probe
// rate, and CPU and run-queue delay of those processes from /proc when they
// run on this host. The result is a Recording: plain timestamped values that
// the lab summarises and the classifier judges, and that tests replay from
// testdata/.
//
// What is read of a server depends on its node's role (topology.Role): the
// readers of each role are listed in one slice (roleSources). RunNodes
// samples any set of nodes, each once, into a NodeWindow; Run is RunNodes
// over a pair, cut into a Recording (NodeWindow.Pair). A Recording, in Go
// as in its file (version 11+), is its nodes and each tick's reads keyed
// by node (Recording.Server, Tick.Read; Tick.Edit and Recording.Clone for
// code that changes one); versions 1 to 10, written as a pair with
// side-prefixed fields, are read into it (legacy.go).
//
// A physical path (version 12+) is sampled with RunPhysical(ctx, connect,
// primary, standby, o), whose connect opens "primary" and "standby"
// (PrimaryNode, StandbyNode), or with RunNodes over PhysicalNodes(primary,
// standby) (nodes {PrimaryNode, topology.Primary}, {StandbyNode,
// topology.Standby}, among others if need be) and NodeWindow.Physical to
// cut its Recording out. A primary's read holds its physical walsenders
// (Read.Senders, Sender.Physical/SyncState/Slot) and physical slots
// (Read.PhysicalSlots); a standby's, Read.Standby (StandbyRead), whose
// startup process (RoleStartup) and WAL receiver (RoleReceiver) are probed
// and read from /proc like the logical path's processes.
package sample
