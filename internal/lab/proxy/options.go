package proxy

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/lagscope/lagscope/internal/units"
)

// Options configures a Proxy. Listen and Upstream are required.
type Options struct {
	// Listen is the host:port to accept clients on, e.g. "127.0.0.1:6432".
	// Port 0 picks a free port; Proxy.Addr reports it. It must be a
	// loopback address unless AllowRemote is set: the proxy authenticates
	// no one. An absolute path is a unix socket of mode 0600 (the proxy's
	// account only; give it to another account with os.Lchown), e.g.
	// "/tmp/link/.s.PGSQL.5432" for libpq's host=/tmp/link port=5432; the
	// path must not exist.
	Listen string
	// AllowRemote lets Listen be an address other machines can reach
	// (every interface, or a non-loopback one): anyone who reaches it
	// reaches Upstream as if from this machine.
	AllowRemote bool
	// Upstream is the host:port (or absolute unix socket path) every client
	// connection is relayed to.
	Upstream string
	// Rate limits each direction of the whole link, in bytes per second,
	// shared by all connections. 0 means unlimited.
	Rate units.ByteRate
	// OnError, if set, is called with errors that end one relayed connection
	// but not the proxy: a failed dial to Upstream, a reset connection. It is
	// called from the connection's goroutine and must not block. Nil ignores
	// them (Stats still counts DialErrors).
	OnError func(error)
}

// Validate reports the first problem with o, in words that say how to fix it.
func (o Options) Validate() error {
	if err := validateAddr("listen", o.Listen, true); err != nil {
		return err
	}
	if err := validateAddr("upstream", o.Upstream, false); err != nil {
		return err
	}
	if o.Listen == o.Upstream {
		return fmt.Errorf("listen and upstream are both %q: the proxy would relay to itself; listen on another port", o.Listen)
	}
	if o.Rate < 0 {
		return fmt.Errorf("rate %d bytes/s is negative: use a positive rate such as 8MB/s, or 0 for unlimited", int64(o.Rate))
	}
	if !o.AllowRemote && !IsLoopback(o.Listen) {
		return fmt.Errorf("listen address %q is reachable from other machines, and the proxy authenticates no one: listen on 127.0.0.1 (e.g. 127.0.0.1:6432), or pass --allow-remote", o.Listen)
	}
	return nil
}

// validateAddr checks that addr is host:port with a numeric port. A listen
// address may omit the host (all interfaces) and use port 0 (any free port).
func validateAddr(what, addr string, listen bool) error {
	if strings.HasPrefix(addr, "/") {
		return nil // a unix socket path
	}
	if addr == "" {
		return fmt.Errorf("%s address is empty: give host:port, e.g. 127.0.0.1:6432", what)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		var ae *net.AddrError
		if errors.As(err, &ae) {
			err = errors.New(ae.Err)
		}
		return fmt.Errorf("%s address %q: %v; give host:port, e.g. 127.0.0.1:6432", what, addr, err)
	}
	if host == "" && !listen {
		return fmt.Errorf("%s address %q has no host: give host:port, e.g. 127.0.0.1:5432", what, addr)
	}
	if p, err := strconv.ParseUint(port, 10, 16); err != nil || (p == 0 && !listen) {
		return fmt.Errorf("%s address %q: port %q is not a port number (1-65535); give host:port, e.g. 127.0.0.1:5432", what, addr, port)
	}
	return nil
}

// network is "unix" for an absolute socket path, otherwise "tcp".
func network(addr string) string {
	if strings.HasPrefix(addr, "/") {
		return "unix"
	}
	return "tcp"
}
