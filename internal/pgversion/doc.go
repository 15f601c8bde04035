// Package pgversion is a PostgreSQL release number (16.14): read from the
// forms servers and binaries print it in (postgres --version, SHOW
// server_version, server_version_num), compared and printed. Both the
// servers lagscope observes and the binaries the lab runs use it.
package pgversion
