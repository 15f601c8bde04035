// Package layers states the tree's import and naming rules, and holds the
// tree to them in its tests; it has no code of its own.
//
// The imports follow one flow, written as data in flow_test.go: an ordered
// list of layers, lowest first (foundations, reading, the static checks,
// topology, sample, measure, the decision model, report, the pipelines over
// them, the lab, the test kit, the commands, the binaries), each a set of
// package paths. docs/layout.md draws them from the imports (layout_test.go
// keeps it current; -update rewrites it). A package imports only packages of its own layer or of the layers
// below it; a package no layer lists fails the test until it is placed.
// Besides the order: internal/audit depends on no report, decision, measure
// or sample package, and only the lab itself, the test kit, internal/cli and
// cmd/ depend on internal/lab/... (tests may use the lab; the product does
// not).
//
// The names of the model are typed (names_test.go): a constant of a defined
// string type named CheckID, VerdictName, StageName or RemedyID, wherever it
// is declared, is the one spelling of that name. Outside the constant's
// package, no non-test Go file writes its value as a string literal (in a
// package that depends on the constant's package), and no string literal is
// used as one of those types: code names a check, a verdict, a stage or a
// remedy by its constant. Comments are not literals, so prose may name them.
// In a const group holding names, a constant with a value but no type is
// refused: Go makes it an untyped string, which no rule would know as a name.
//
// The tests read the module's files with go/parser and go/types (the
// dependencies' export data from 'go list -export'): no server, no network,
// fast enough for -short.
package layers
