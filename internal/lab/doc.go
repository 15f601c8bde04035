// Package lab builds disposable publisher/subscriber pairs on this machine and
// drives them into a known replication bottleneck (a Recipe of Steps), then
// measures the pair the way seed 000's lab did: LSNs and /proc CPU every 2 s,
// wait events of the walsenders and apply workers several times a second.
//
// The scenarios (each recipe with the state it makes and the verdict that
// state must produce) are in package scenario, the changes 'lab whatif'
// makes in package whatif; both import lab, never the other way.
//
// Everything the lab creates lives in clusters it made itself (package
// cluster); Pair.Close removes them, and so does a deferred Close on error or
// cancellation.
package lab
