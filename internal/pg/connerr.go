package pg

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// parseErrText is why a connection string did not parse, in one line that
// quotes none of it: pgx's own text quotes it with a best-effort
// redaction that leaves parts of an escaped or quoted password visible.
func parseErrText(err error) string {
	var pe *pgconn.ParseConfigError
	if !errors.As(err, &pe) {
		return err.Error()
	}
	bare := *pe
	bare.ConnString = ""
	// The causes pgx wraps (url.Parse's among them) quote pieces of the
	// input, which may be pieces of the password.
	// Not quoted faithfully either (a '"' inside is not escaped): everything
	// from the first double quote to the last goes.
	text := strings.TrimPrefix(bare.Error(), "cannot parse ``: ")
	first, last := strings.Index(text, `"`), strings.LastIndex(text, `"`)
	switch {
	case first >= 0 && first < last:
		text = text[:first] + `"..."` + text[last+1:]
	case first >= 0:
		text = text[:first] + "..."
	}
	return text
}

// attemptRE is one line of a pgx connection error: an address tried and why
// it failed ("127.0.0.1:1 (127.0.0.1): dial error: ...").
var attemptRE = regexp.MustCompile(`^(\S+) \(([^)]*)\): (.*)$`)

var lookupRE = regexp.MustCompile(`lookup (\S+?)(?: on \S+)?: (.*)$`)

// connErrText turns a connection failure into one line that names its
// cause and says what to check: the server's own refusal, the certificate,
// or for each address tried the reason (refused, unknown host, no socket,
// no answer within the connect timeout, or within limit when the caller's
// own deadline came first), without repeats.
func connErrText(err error, dsn string, cfg *pgx.ConnConfig, limit connLimit) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return serverRefusal(pe, dsn, cfg)
	}
	if msg := tlsErrText(err); msg != "" {
		return msg
	}
	if errors.Is(err, context.Canceled) {
		return "interrupted while connecting"
	}
	var reasons []string
	seen := map[string]bool{}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) == 1 { // one attempt: "failed to connect to `...`: addr (host): reason"
		if _, rest, ok := strings.Cut(lines[0], "`: "); ok {
			lines[0] = rest
		}
	}
	for _, line := range lines {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "failed to connect to `") {
			continue
		}
		r := attemptReason(line, limit)
		if !seen[r] {
			seen[r] = true
			reasons = append(reasons, r)
		}
	}
	if len(reasons) == 0 {
		return strings.Join(strings.Fields(err.Error()), " ")
	}
	return strings.Join(reasons, "; ")
}

// connLimit is how long a connect attempt had: the connect timeout, or
// the caller's deadline (caller) when that came first.
type connLimit struct {
	d      time.Duration
	caller bool
}

// limitOf is the limit of a connect attempt with timeout under ctx.
func limitOf(ctx context.Context, timeout time.Duration) connLimit {
	if dl, ok := ctx.Deadline(); ok {
		if left := time.Until(dl); left < timeout {
			return connLimit{d: max(left.Round(100*time.Millisecond), 0), caller: true}
		}
	}
	return connLimit{d: timeout}
}

// attemptReason explains one address's failure.
func attemptReason(line string, limit connLimit) string {
	addr, why := "", line
	if m := attemptRE.FindStringSubmatch(line); m != nil {
		addr, why = m[1], m[3]
	}
	switch {
	case strings.Contains(why, "hostname resolving error") || strings.HasPrefix(why, "lookup "):
		if m := lookupRE.FindStringSubmatch(why); m != nil {
			if strings.Contains(m[2], "no such host") {
				return fmt.Sprintf("host %s is unknown (no such host): check the host name", m[1])
			}
			return fmt.Sprintf("cannot resolve host %s (%s): check the host name and this machine's DNS", m[1], m[2])
		}
		return why
	case strings.Contains(why, "connection refused"):
		return fmt.Sprintf("connection refused at %s: is PostgreSQL running and listening there (listen_addresses, port)?", addr)
	case strings.Contains(why, "no such file or directory") && strings.HasPrefix(addr, "/"):
		return fmt.Sprintf("no server socket %s: is PostgreSQL running, and are host (the socket directory) and port right?", addr)
	case strings.Contains(why, "timeout") || strings.Contains(why, "deadline exceeded"):
		if limit.caller {
			return fmt.Sprintf("no answer from %s within %s (lagscope's limit for a reconnect during sampling): a frozen or broken network path; check the host, the port and firewalls", addr, limit.d)
		}
		return fmt.Sprintf("no answer from %s within %s (the connect timeout): check the host, the port and firewalls; connect_timeout=N (seconds) in the connection string gives it longer", addr, limit.d)
	case strings.Contains(why, "network is unreachable") || strings.Contains(why, "no route to host"):
		return fmt.Sprintf("%s cannot be reached from this machine (%s): check the address and the routes", addr, lastPart(why))
	}
	if addr != "" {
		return addr + ": " + why
	}
	return why
}

func lastPart(s string) string {
	if i := strings.LastIndex(s, ": "); i >= 0 {
		return s[i+2:]
	}
	return s
}

// serverRefusal explains an error the server sent while we connected.
func serverRefusal(pe *pgconn.PgError, dsn string, cfg *pgx.ConnConfig) string {
	switch pe.Code {
	case "53300": // too_many_connections
		return pe.Message + ": the server has no connection slot free (max_connections); lagscope needs one session per server: end idle sessions, or keep slots for monitoring roles (16+: reserved_connections and pg_use_reserved_connections)"
	case "28P01": // invalid_password
		if cfg.Password == "" {
			return fmt.Sprintf("%s: no password was given for role %s (none in the connection string, PGPASSWORD or the password file): give one, in ~/.pgpass preferably", pe.Message, cfg.User)
		}
		return fmt.Sprintf("%s: the password for role %s came from %s: check it, or the role's password on the server", pe.Message, cfg.User, passwordSource(dsn, cfg))
	case "28000": // invalid_authorization_specification: pg_hba.conf, unknown role
		if strings.Contains(pe.Message, "pg_hba.conf") {
			return pe.Message + ": add a pg_hba.conf line for this host, role and database (and reload), or connect as a role it admits"
		}
		return pe.Message + ": connect as a role that exists (user=...), with pg_monitor granted"
	case "3D000": // invalid_catalog_name
		return pe.Message + ": check dbname (the subscription's database on the subscriber, the publication's on the publisher)"
	case "57P03": // cannot_connect_now
		return pe.Message + ": the server is starting up, shutting down or in recovery without hot_standby: try again when it accepts connections"
	}
	return pe.Message
}

// passwordSource says where the password pgx sent came from.
func passwordSource(dsn string, cfg *pgx.ConnConfig) string {
	switch {
	case len(Passwords(dsn)) > 0:
		return "the connection string"
	case os.Getenv("PGPASSWORD") == cfg.Password:
		return "PGPASSWORD"
	case strings.Contains(dsn, "service=") || os.Getenv("PGSERVICE") != "":
		return "the service file or the password file"
	}
	if f := os.Getenv("PGPASSFILE"); f != "" {
		return "the password file " + f + " (PGPASSFILE)"
	}
	return "the password file ~/.pgpass"
}

// connectFailure marks an error of Connect: the connection string did not
// parse, the server could not be reached or refused the session, or it is
// too old.
type connectFailure struct{ error }

func (c connectFailure) Unwrap() error { return c.error }

// IsConnectFailure says whether err comes from Connect failing.
func IsConnectFailure(err error) bool {
	var cf connectFailure
	return errors.As(err, &cf)
}
