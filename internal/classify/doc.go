// Package classify names the stage that limits a logical replication path.
// It is a pure function of recorded samples (see package sample and package
// measure): the same Recording always gives the same Verdict, and it never
// reads the clock. The rules follow the diagnosis model: positions alone never
// locate the bottleneck, process behaviour does, and run-queue delay tells a
// starved process from one that waits for the network.
package classify
