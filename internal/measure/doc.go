// Package measure derives what a Recording says about one replication path or
// a whole pair: generation and consumption rates, CPU and run-queue shares of
// the walsenders and apply workers, wait-event shares, and where the lag sits
// (Summary); and per slot, everything else the classifier judges (Path: the
// slot and its subscription at the window's ends, error and spill deltas,
// worker changes, median and flush lag, blockers, a tablesync copy).
// Everything here is pure: the same Recording always gives the same numbers.
package measure
