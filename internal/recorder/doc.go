// Package recorder keeps what the sampler produces (package sample) on
// disk, continuously, and cuts any past window of it back into a
// *sample.Recording: the same type 'lagscope diagnose' classifies.
//
// A path's recording is a directory of segments, each a file of gzip
// members holding JSON lines (format.go): one member per sampled step,
// written whole, so that a recorder killed at any moment loses at most the
// step it had not finished, and every member before reads back (a gzip
// reader stops at the first member that does not end). A segment is
// started every Options.SegmentEvery; the setup read of the pair is kept
// at the start of each segment and whenever it changes. index.json names
// each segment with its first and last time, rewritten atomically
// (safefile) after each member; a segment missing from it (the newest,
// after a crash) is read anyway. Retention removes the oldest segments by
// age and by total size (retain.go).
//
// Writer writes one path's recording; Read cuts [from, to) out of one,
// across segments, with the stretches where nothing was recorded marked as
// gaps (the cause a failed step gave, or "not recorded").
package recorder
