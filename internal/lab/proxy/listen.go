package proxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
)

// IsLoopback reports whether a listen address (host:port) accepts
// connections from this machine only: 127.0.0.0/8, ::1 or localhost. An
// empty host is every interface; a unix socket path counts as local.
func IsLoopback(addr string) bool {
	if strings.HasPrefix(addr, "/") {
		return true
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// IsUnix reports whether addr is a unix socket path rather than host:port.
func IsUnix(addr string) bool { return network(addr) == "unix" }

// listenUnix listens on the unix socket path with mode 0600, so that only
// the proxy's own account (and root) can connect: the socket is made in a
// private directory beside path, given its mode there, and linked to path,
// so that no other account can connect in between. path must not exist.
// Closing the listener removes path.
func listenUnix(ctx context.Context, path string) (net.Listener, error) {
	tmpDir, err := os.MkdirTemp(filepath.Dir(path), ".lagscope-proxy-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmpDir)
	tmp := filepath.Join(tmpDir, "s")
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "unix", tmp)
	if err != nil {
		return nil, err
	}
	ul := ln.(*net.UnixListener)
	ul.SetUnlinkOnClose(false)
	if err := os.Chmod(tmp, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	if err := os.Link(tmp, path); err != nil {
		ln.Close()
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("%s already exists: address already in use", path)
		}
		return nil, err
	}
	return &unixListener{UnixListener: ul, path: path}, nil
}

// unixListener is a unix-socket listener at path, which it reports as its
// address and removes on Close.
type unixListener struct {
	*net.UnixListener
	path string
}

func (l *unixListener) Addr() net.Addr { return &net.UnixAddr{Name: l.path, Net: "unix"} }

func (l *unixListener) Close() error {
	err := l.UnixListener.Close()
	os.Remove(l.path)
	return err
}
