// Package timeline lists the incidents of a recording (package recorder):
// it classifies the recording window by window with the same diagnosis as
// 'lagscope diagnose' (diagnose.Build) and joins consecutive windows of a
// path with the same finding into one incident, with its start and end,
// its peak lag and how it ended (caught up, another verdict, a stretch not
// sampled, or still going when the recording ends).
package timeline
