// Package calibration sets the CPU signals lagscope measures from inside a
// server (the stretch of a fixed CPU burst, the wake-up lateness of its
// probe session) beside the /proc run-queue shares of the walsender and the
// apply worker in the same recordings: the table and plots of
// docs/no-proc.md, and the figures the classifier's thresholds rest on.
package calibration
