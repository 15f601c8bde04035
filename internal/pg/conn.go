package pg

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lagscope/lagscope/internal/pgversion"
)

// Marker starts every query lagscope sends, so its sessions are easy to find.
const Marker = "/* lagscope */ "

// Defaults for observing sessions.
const (
	DefaultConnectTimeout   = 5 * time.Second
	DefaultStatementTimeout = 2 * time.Second
	// MaxConnectTimeout caps a connect_timeout the connection string sets.
	MaxConnectTimeout = time.Minute
)

// Conn is an observing session on one server.
type Conn struct {
	*pgx.Conn
	Role    string            // "publisher" or "subscriber", used in messages
	Version pgversion.Version // server_version_num
	// Local is true when the server was reached over a unix socket or loopback,
	// so its backends may be visible in this host's /proc.
	Local bool
}

// CheckConnString says why dsn does not parse (nil when it does), as
// Connect would, without connecting; it remembers dsn's passwords.
func CheckConnString(dsn, role string) error {
	_, err := parse(dsn, role)
	return err
}

func parse(dsn, role string) (*pgx.ConnConfig, error) {
	Remember(dsn)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, connectFailure{fmt.Errorf("%s connection string: %w (use 'host=... dbname=...' or 'postgres://host/db')", role, &RedactedError{Err: err, Text: parseErrText(err)})}
	}
	return cfg, nil
}

// Connect opens a read-only observing session. role names the server in errors.
func Connect(ctx context.Context, dsn, role string) (*Conn, error) {
	cfg, err := parse(dsn, role)
	if err != nil {
		return nil, err
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	cfg.ConnectTimeout = min(cfg.ConnectTimeout, MaxConnectTimeout)
	observe(cfg.RuntimeParams)
	// Prepared statements (pgx's default statement cache): the wait-event probe
	// runs 20 times a second, and parsing and planning it each time would be
	// most of its cost on the server.
	local := isLocal(cfg.Host)
	limit := limitOf(ctx, cfg.ConnectTimeout)
	var c *pgx.Conn
	var got Session
	for try := 1; ; try++ {
		c, err = pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			if RecoveryCancelled(err) && try < recoveryTries && ctx.Err() == nil {
				continue
			}
			return nil, connectFailure{fmt.Errorf("connect to %s (%s): %w", role, describe(cfg), &RedactedError{Err: err, Text: connErrText(err, dsn, cfg, limit)})}
		}
		qctx, cancel := WithAnswerTimeout(ctx, ReadTimeout)
		err = c.QueryRow(qctx, sessionSQL).Scan(&got.VersionNum, &got.ReadOnly, &got.StandardStrings)
		err = Unanswered(qctx, err)
		cancel()
		if err == nil {
			break
		}
		c.Close(context.Background())
		if !RecoveryCancelled(err) || try >= recoveryTries || ctx.Err() != nil {
			return nil, connectFailure{fmt.Errorf("read %s session (server version, read-only): %w", role, RedactErr(err))}
		}
	}
	if err := got.Check(role); err != nil {
		c.Close(context.Background())
		return nil, connectFailure{err}
	}
	v := pgversion.FromNum(got.VersionNum)
	return &Conn{Conn: c, Role: role, Version: v, Local: local}, nil
}

// Close ends the session.
func (c *Conn) Close() {
	if c != nil && c.Conn != nil {
		// Bounded: on a frozen path even the goodbye may not get out.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		c.Conn.Close(ctx)
	}
}

func isLocal(host string) bool {
	if strings.HasPrefix(host, "/") || host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func describe(cfg *pgx.ConnConfig) string {
	return fmt.Sprintf("host=%s port=%d user=%s dbname=%s", cfg.Host, cfg.Port, cfg.User, cfg.Database)
}

// tlsErrText explains why the server's certificate was refused, in one
// line that says what to do; "" when err is not about the certificate.
func tlsErrText(err error) string {
	var host x509.HostnameError
	var auth x509.UnknownAuthorityError
	var invalid x509.CertificateInvalidError
	switch {
	case errors.As(err, &host):
		names := append([]string{}, host.Certificate.DNSNames...)
		for _, ip := range host.Certificate.IPAddresses {
			names = append(names, ip.String())
		}
		return fmt.Sprintf("the server's certificate is not for host %q but for %s (sslmode=verify-full checks the name): connect with a name the certificate carries, or give the server a certificate for this one",
			host.Host, strings.Join(names, ", "))
	case errors.As(err, &auth):
		return "the server's certificate is signed by a CA that sslrootcert does not hold (unknown authority): point sslrootcert at the file of the CA that signed it"
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		return fmt.Sprintf("the server's certificate has expired or is not valid yet (%s): renew it, or check this host's clock", invalid.Detail)
	case strings.Contains(err.Error(), "server refused TLS connection"):
		return "the server does not offer TLS (ssl = off) while the connection string requires it (sslmode=require or stronger)"
	}
	return ""
}

// recoveryTries is how many times Connect tries a standby that cancels
// the new session's start or first statement for a recovery conflict
// (SQLSTATE 40001): a standby replaying a backlog older than
// max_standby_streaming_delay cancels whatever conflicts with its replay,
// a backend's catalog reads at start included.
const recoveryTries = 5

// RecoveryCancelled says err is a standby's cancellation of a statement
// or a session's start for a conflict with recovery (SQLSTATE 40001).
func RecoveryCancelled(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "40001"
}

// AgainOnRecoveryConflict runs read, and again at once while a standby
// cancels it for a recovery conflict (SQLSTATE 40001) and the session
// stays open, recoveryTries times in all. A standby replaying WAL older
// than max_standby_streaming_delay cancels any statement whose snapshot
// meets a cleanup record: a short read loses now and then, and its next
// try mostly does not.
func AgainOnRecoveryConflict(ctx context.Context, c *Conn, read func() error) error {
	for try := 1; ; try++ {
		err := read()
		if err == nil || !RecoveryCancelled(err) || try >= recoveryTries || ctx.Err() != nil || (c != nil && c.Conn != nil && c.IsClosed()) {
			return err
		}
	}
}
