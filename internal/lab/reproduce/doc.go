// Package reproduce reruns the seeds' lab experiments (../shared/seeds,
// docs/reproduction.md) on this machine and prints each measurement next to
// the published figure, with the ratios the seeds draw.
//
// An Experiment builds its own disposable clusters through internal/lab and
// internal/cluster, repeats each case Options.Runs times and returns a Table:
// rows of per-run values with their median and spread, ratios checked against
// the seed's within a tolerance, caveats for what this machine cannot
// reproduce faithfully, and failures (a data mismatch after a drain) that make
// the run fail. Rendering is separate (text.go, markdown.go).
package reproduce
