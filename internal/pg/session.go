package pg

import (
	"fmt"
	"strconv"
	"time"

	"github.com/lagscope/lagscope/internal/pgversion"
)

// LockTimeout bounds how long any statement of an observing session waits
// for a lock (pgmetrics waits 50 ms): a catalog read behind a DDL statement
// gives up at once instead of queueing every later locker behind itself.
const LockTimeout = 100 * time.Millisecond

// observe sets the startup parameters of an observing session in rp (the
// connection string's own values for them are replaced). Startup
// parameters outrank what ALTER DATABASE or ALTER ROLE ... SET chose, so a
// database owner cannot turn them off for lagscope's sessions.
func observe(rp map[string]string) {
	rp["application_name"] = "lagscope"
	rp["default_transaction_read_only"] = "on"
	rp["statement_timeout"] = strconv.FormatInt(DefaultStatementTimeout.Milliseconds(), 10)
	rp["lock_timeout"] = strconv.FormatInt(LockTimeout.Milliseconds(), 10)
	rp["idle_in_transaction_session_timeout"] = "10000"
	// Every literal is read as written: with standard_conforming_strings
	// off (ALTER DATABASE ... SET), a backslash in a quoted string escapes
	// the quote. lagscope sends names as parameters only; this holds for
	// any literal all the same.
	rp["standard_conforming_strings"] = "on"
	// The catalogs first: a database owner's search_path (ALTER DATABASE
	// ... SET search_path = evil, pg_catalog) could otherwise put a
	// function or view of theirs in front of pg_catalog's, run with
	// lagscope's privileges. PostgreSQL searches pg_catalog first only when
	// the path does not name it; the connection string's own path (or
	// public) follows, where extensions such as pg_wait_sampling live.
	path := rp["search_path"]
	if path == "" {
		path = "public"
	}
	rp["search_path"] = "pg_catalog, " + path
	// No JIT: a catalog read whose estimated cost passes jit_above_cost
	// (the subscribed tables' counters, read every tick) would compile
	// each time, on the server lagscope observes (builds with LLVM, such as
	// Debian's, have it on by default).
	rp["jit"] = "off"
}

// sessionSQL reads what Session holds, right after connecting.
const sessionSQL = Marker + `SELECT current_setting('server_version_num')::int,
  current_setting('transaction_read_only')::bool, current_setting('standard_conforming_strings')::bool`

// Session is what a new session reports about itself.
type Session struct {
	VersionNum int // server_version_num
	// ReadOnly is transaction_read_only: on when the startup parameter
	// default_transaction_read_only reached the server (or it is a standby).
	ReadOnly bool
	// StandardStrings is standard_conforming_strings.
	StandardStrings bool
}

// Check refuses a session lagscope must not observe through: a server
// older than 13, or one where the startup parameters did not take (a
// connection pooler that drops them, such as PgBouncer with
// ignore_startup_parameters), which would leave the session writable.
// role names the server in the one-line error.
func (s Session) Check(role string) error {
	if v := pgversion.FromNum(s.VersionNum); v.Major < 13 {
		return fmt.Errorf("%s runs PostgreSQL %s: lagscope needs 13 or newer", role, v)
	}
	dropped := ""
	switch {
	case !s.ReadOnly:
		dropped = "transaction_read_only is off although lagscope asked for default_transaction_read_only = on"
	case !s.StandardStrings:
		dropped = "standard_conforming_strings is off although lagscope asked for it on"
	default:
		return nil
	}
	return fmt.Errorf("%s: %s when it connected: something between lagscope and the server (a connection pooler such as PgBouncer) dropped the session's startup parameters; connect to the server directly, or through a pool that passes them, so that lagscope observes read-only", role, dropped)
}
