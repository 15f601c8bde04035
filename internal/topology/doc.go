// Package topology names what lagscope observes: nodes (PostgreSQL servers,
// or a consumer that is not one) with the role each plays, and the paths
// along which changes flow from a source node to a consumer node.
//
// It is data only: no I/O, no PostgreSQL. The sampler lists which readers
// run for each Role; the exporter samples each Node once for every Path
// that reads it.
package topology
