// Package audit is lagscope's static check of a logical replication setup:
// the configuration and schema choices that make replication lag before any
// load arrives (REPLICA IDENTITY FULL without a usable index, extra subscriber
// indexes, a slot nobody reads, ...).
//
// Reading is separate from deciding. ReadPublisher and ReadSubscriber fill a
// Publisher and a Subscriber snapshot from the catalogs, ReadStandby and
// ReadPrimary a physical standby's and its primary's (one file each, with
// version-specific SQL); a part of the catalogs the role may not read is
// recorded in the snapshot's Unreadable map ("needs ...") instead of failing.
// Each check is a pure function over the Snapshots, in its own file
// (pub_*.go, sub_*.go, both_*.go, standby_*.go) beside the constant of its CheckID, and All
// lists them explicitly: a new check is its file, a line in All and its page
// in docs/checks/. Run
// evaluates checks and returns one Result per check: its findings, or "ok",
// or "not applicable (reason)", or "not checked: needs ...".
//
// A Report is the versioned, serialisable outcome of one run (SchemaVersion);
// Text, Markdown and JSON render it, and ReadReport loads a saved one.
//
// Snapshots are plain JSON-serialisable values, so a run can be recorded
// (lagscope check --save-snapshots) and the checks re-run on it later or in
// tests (testdata/).
package audit
