// Package sample records what lagscope observes on a publisher and a
// subscriber: positions and counters every tick, wait events of the walsenders
// and logical replication workers at a fast probe rate, and CPU and run-queue
// delay of those processes from /proc when they run on this host. The result is
// a Recording: plain timestamped values that the lab summarises and the
// classifier judges, and that tests replay from testdata/.
package sample
