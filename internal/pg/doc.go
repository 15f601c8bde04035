// Package pg opens lagscope's observing sessions: every connection sets
// application_name=lagscope, default_transaction_read_only=on, a statement
// timeout and a connect timeout, honours libpq conventions (keyword/value or URI
// strings, PG* environment variables, .pgpass — all through pgx), and never lets a
// password reach an error message. It also knows server versions.
package pg
