package lab

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/lagscope/lagscope/internal/lab/certs"
	"github.com/lagscope/lagscope/internal/lab/cluster"
)

// giveCertificates makes a CA for the pair's lifetime (its certificate in
// the lab directory as ca.crt) and gives both servers a certificate for
// localhost and 127.0.0.1.
func (p *Pair) giveCertificates() error {
	ca, err := certs.NewCA("lagscope lab "+filepath.Base(p.Lab.Dir), 7*24*time.Hour)
	if err != nil {
		return err
	}
	p.CAFile = filepath.Join(p.Lab.Dir, "ca.crt")
	if err := os.WriteFile(p.CAFile, ca.PEM, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", p.CAFile, err)
	}
	now := time.Now()
	for _, c := range []*cluster.Cluster{p.Pub, p.Sub} {
		s, err := ca.Issue([]string{"localhost", "127.0.0.1"}, now.Add(-time.Hour), now.Add(7*24*time.Hour))
		if err != nil {
			return err
		}
		if err := c.SetTLS(s); err != nil {
			return err
		}
	}
	return nil
}

// ConnString is how a tool reaches server c of the pair: its socket, or
// with TLS, localhost over TCP with sslmode=verify-full against the pair's
// CA.
func (p *Pair) ConnString(c *cluster.Cluster) string {
	if p.CAFile == "" {
		return c.ConnString(Database)
	}
	return c.TCPConnString(Database, "localhost", "sslmode=verify-full sslrootcert="+p.CAFile)
}
