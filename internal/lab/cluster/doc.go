// Package cluster creates, starts and removes disposable PostgreSQL clusters for
// the lab. A cluster lives in a directory of its own under a lab directory (see
// Lab), listens on a unix socket in a directory only its account can enter
// (and on loopback only when asked, with a password), and is started as a direct child of lagscope with a parent-death signal, so it
// cannot outlive lagscope even after a SIGKILL. Lab directories carry a marker
// file; Clean finds and removes leftovers from lagscope processes that died.
//
// When lagscope runs as root (CI does), initdb and postgres run as the
// unprivileged account LabAccount (created when missing), with no
// supplementary groups, because initdb refuses to run as root and a lab
// server must reach nothing of the machine's own PostgreSQL. Root writes into
// that account's directories only through writeOwned (a fresh file renamed
// into place, never through a path the account could have replaced).
package cluster
