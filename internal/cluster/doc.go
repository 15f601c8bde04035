// Package cluster creates, starts and removes disposable PostgreSQL clusters for
// the lab. A cluster lives in a private directory under a lab directory (see
// Lab), listens on loopback and on a unix socket inside its own directory, and
// is started as a direct child of lagscope with a parent-death signal, so it
// cannot outlive lagscope even after a SIGKILL. Lab directories carry a marker
// file; Clean finds and removes leftovers from lagscope processes that died.
//
// When lagscope runs as root (CI does), initdb and postgres run as an
// unprivileged user ("postgres" if it exists, else "nobody"), because initdb
// refuses to run as root.
package cluster
