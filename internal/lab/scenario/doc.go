// Package scenario holds the lab's scenarios, each written once, in a file
// of its own: the recipe that drives a pair into a known state
// (lab.Recipe), the check that the lab made that state (a pure function
// over the lab's measurement, used by the integration test and by 'lab
// run'), the verdict the state must produce, and what else diagnose must
// say of it. The registry (registry.go) lists them in the order help shows
// them; the expectations table of the classifier's recordings
// (internal/classify/testdata/expected.tsv) is generated from it (see
// TestExpectationsTableIsTheRegistrys).
//
// Adding a scenario is a file here and a line in the registry (and a step
// in package lab when its fault is new).
package scenario
