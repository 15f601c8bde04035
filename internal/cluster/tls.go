package cluster

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/lagscope/lagscope/internal/certs"
)

// SetTLS gives the server a certificate and its key: written into the data
// directory (the key readable by the server's account only) and turned on
// with ssl = on; it takes effect at the next start (Restart for a running
// server).
func (c *Cluster) SetTLS(s certs.Server) error {
	for _, f := range []struct {
		name string
		data []byte
	}{{"server.crt", s.CertPEM}, {"server.key", s.KeyPEM}} {
		path := filepath.Join(c.DataDir, f.name)
		if err := os.WriteFile(path, f.data, 0o600); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		if err := c.owner.chown(path); err != nil {
			return err
		}
	}
	if c.opts.Settings == nil {
		c.opts.Settings = map[string]string{}
	}
	c.opts.Settings["ssl"] = "on"
	c.opts.Settings["ssl_cert_file"] = "'server.crt'"
	c.opts.Settings["ssl_key_file"] = "'server.key'"
	if c.Port != 0 {
		return c.writeConf()
	}
	return nil
}

// TCPConnString is a connection string to the server over TCP on the
// loopback address as host (a name such as localhost, or 127.0.0.1), with
// the given extra keywords (sslmode=verify-full sslrootcert=...).
func (c *Cluster) TCPConnString(db, host, extra string) string {
	s := fmt.Sprintf("host=%s port=%d user=%s dbname=%s", host, c.Port, Superuser, db)
	if extra != "" {
		s += " " + extra
	}
	return s
}
