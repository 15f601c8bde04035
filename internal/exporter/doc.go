// Package exporter serves lagscope's view of one or more replication paths
// to Prometheus: every pair is kept under observation by a monitor (rolling
// window, re-evaluated every step), each step's result is folded into the
// pair's state (state.go: pure), and a scrape of /metrics reads that state
// (collector.go) without ever waiting for a database. Pairs come from flags
// or a YAML file (config.go); the HTTP server takes TLS and basic auth from
// a Prometheus web config file (exporter-toolkit).
package exporter
