package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sys/unix"

	"github.com/lagscope/lagscope/internal/lab/certs"
)

// SetTLS gives the server a certificate and its key: written into the data
// directory (the key readable by the server's account only) and turned on
// with ssl = on, on 127.0.0.1 as well as on the socket (Options.TCP); it
// takes effect at the next start (Restart for a running server).
func (c *Cluster) SetTLS(s certs.Server) error {
	for _, f := range []struct {
		name string
		data []byte
	}{{"server.crt", s.CertPEM}, {"server.key", s.KeyPEM}} {
		if err := writeOwned(c.owner, c.DataDir, f.name, f.data); err != nil {
			return err
		}
	}
	if c.opts.Settings == nil {
		c.opts.Settings = map[string]string{}
	}
	c.opts.Settings["ssl"] = "on"
	c.opts.Settings["ssl_cert_file"] = "'server.crt'"
	c.opts.Settings["ssl_key_file"] = "'server.key'"
	c.opts.TCP = true
	if c.Port != 0 {
		return c.writeConf()
	}
	return nil
}

// TCPConnString is a connection string to the server over TCP on the
// loopback address as host (a name such as localhost, or 127.0.0.1), with
// the given extra keywords (sslmode=verify-full sslrootcert=...). The
// superuser's password is in the passfile it names (lagscope's, 0600), not
// in the string. The server must have been started with Options.TCP or
// SetTLS.
func (c *Cluster) TCPConnString(db, host, extra string) string {
	s := fmt.Sprintf("host=%s port=%d user=%s dbname=%s passfile=%s", host, c.Port, Superuser, db, c.PassFile())
	if extra != "" {
		s += " " + extra
	}
	return s
}

// PassFile is the libpq password file holding the superuser's password for
// TCP (mode 0600, in the cluster's directory, which only lagscope writes);
// it exists once a server with TCP has started.
func (c *Cluster) PassFile() string { return filepath.Join(c.Dir, "pgpass") }

// tcp reports whether the server listens on 127.0.0.1.
func (c *Cluster) tcp() bool { return c.opts.TCP }

// setPassword gives the superuser a fresh random password, on the server's
// first start with TCP, and writes it to PassFile. The password is hex, so
// it needs no quoting, and is never printed or logged.
func (c *Cluster) setPassword(ctx context.Context, conn *pgx.Conn) error {
	if _, err := os.Lstat(c.PassFile()); err == nil {
		return nil
	}
	var rnd [24]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return fmt.Errorf("make the %s server's password: %w", c.Name, err)
	}
	pw := hex.EncodeToString(rnd[:])
	f, err := os.OpenFile(c.PassFile(), os.O_WRONLY|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return fmt.Errorf("write the %s server's passfile: %w", c.Name, err)
	}
	_, werr := fmt.Fprintf(f, "*:*:*:%s:%s\n", Superuser, pw)
	if err := f.Close(); werr == nil {
		werr = err
	}
	if werr == nil {
		_, werr = conn.Exec(ctx, "ALTER ROLE "+Superuser+" PASSWORD '"+pw+"'")
	}
	if werr != nil {
		os.Remove(c.PassFile())
		return fmt.Errorf("set the %s server's password: %w", c.Name, werr)
	}
	return nil
}
