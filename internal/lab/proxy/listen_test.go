package proxy

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A unix-socket proxy makes its socket 0600 at the path asked for, relays
// through it, reports that path as its address, refuses a path that
// exists, and removes its socket on Close.
func TestAUnixSocketListenIsPrivateAndRemovedOnClose(t *testing.T) {
	up := listen(t, func(c net.Conn) { io.Copy(c, c) })
	dir := t.TempDir()
	path := filepath.Join(dir, ".s.PGSQL.5432")
	p, err := Start(context.Background(), Options{Listen: path, Upstream: up})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Type() != os.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket %s has mode %v, want a socket of mode 0600", path, fi.Mode())
	}
	if p.Addr() != path {
		t.Errorf("Addr() = %q, want %q", p.Addr(), path)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the socket's directory holds %d entries, want only the socket (no temporary directory left)", len(entries))
	}
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("ping"))
	buf := make([]byte, 4)
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "ping" {
		t.Errorf("echo through the socket = %q, %v; want ping", buf, err)
	}
	c.Close()

	if _, err := Start(context.Background(), Options{Listen: path, Upstream: up}); err == nil || !strings.Contains(err.Error(), "already") {
		t.Errorf("a second proxy on %s: %v, want an already-in-use error", path, err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Errorf("socket %s still there after Close (%v)", path, err)
	}
}
