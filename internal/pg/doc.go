// Package pg opens lagscope's observing sessions: every connection sets
// application_name=lagscope, default_transaction_read_only=on,
// standard_conforming_strings=on, a statement timeout, a 100 ms lock timeout
// and a connect timeout as startup parameters (which outrank ALTER DATABASE
// ... SET), and refuses a session where they did not take (a pooler that
// drops them), honours libpq conventions (keyword/value or URI
// strings, PG* environment variables, .pgpass — all through pgx), and never lets a
// password reach an error message. It also knows server versions.
package pg
