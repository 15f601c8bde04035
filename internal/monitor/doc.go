// Package monitor keeps one publisher/subscriber pair under continuous
// observation: it samples in steps (default 10 s) with the same sessions
// and probes as 'lagscope diagnose', classifies the last window's worth of
// steps together (a rolling window, default 30 s) after every step, and
// hands each result to a callback. A server that cannot be reached is
// retried with a growing backoff; Run returns only when its context ends.
// 'lagscope exporter' and 'lagscope watch' are built on it. Pairs of one
// publisher share its sampler (Groups, RunGroup): each server is read once
// a step for all the pairs that read it.
package monitor
