package proxy

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// echo is an upstream that sends each line back.
func echo(c net.Conn) { io.Copy(c, c) }

// roundTrip sends a line through c and reads it back within d.
func roundTrip(c net.Conn, r *bufio.Reader, d time.Duration) error {
	c.SetDeadline(time.Now().Add(d))
	defer c.SetDeadline(time.Time{})
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return err
	}
	line, err := r.ReadString('\n')
	if err == nil && line != "ping\n" {
		return errors.New("echoed " + line)
	}
	return err
}

// echoing connects to p (relaying to an echo server) and makes one round
// trip; the connection closes when the test ends.
func echoing(t *testing.T, p *Proxy) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	r := bufio.NewReader(c)
	if err := roundTrip(c, r, 5*time.Second); err != nil {
		t.Fatalf("before the fault: %v", err)
	}
	return c, r
}

func TestFreezeHoldsEveryByteWithoutClosingAndRestoreLetsThemThrough(t *testing.T) {
	p := startProxy(t, listen(t, echo), 0)
	c, r := echoing(t, p)

	p.Freeze()
	err := roundTrip(c, r, 300*time.Millisecond)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a round trip through a frozen link = %v, want a timeout (no answer, no close)", err)
	}
	// A client that connects now is accepted and reaches nothing.
	c2, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatalf("connect while frozen: %v", err)
	}
	defer c2.Close()
	r2 := bufio.NewReader(c2)
	if err := roundTrip(c2, r2, 300*time.Millisecond); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a new connection through a frozen link = %v, want a timeout", err)
	}

	p.Restore()
	// The held bytes arrive, in order, then new ones.
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if line, err := r.ReadString('\n'); err != nil || line != "ping\n" {
		t.Fatalf("after Restore the held line = %q, %v", line, err)
	}
	if err := roundTrip(c, r, 5*time.Second); err != nil {
		t.Errorf("after Restore: %v", err)
	}
	c2.SetReadDeadline(time.Now().Add(5 * time.Second))
	if line, err := r2.ReadString('\n'); err != nil || line != "ping\n" {
		t.Errorf("the connection made while frozen, after Restore: %q, %v", line, err)
	}
}

func TestCutClosesEveryConnectionAndRefusesNewOnesUntilRestore(t *testing.T) {
	p := startProxy(t, listen(t, echo), 0)
	c, r := echoing(t, p)

	p.Cut()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := r.ReadByte(); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read after Cut = %v, want EOF or reset at once", err)
	}
	c2, err := net.Dial("tcp", p.Addr())
	if err == nil {
		defer c2.Close()
		c2.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := c2.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("a connection made while cut read %v, want EOF or reset", err)
		}
	}

	p.Restore()
	c3, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c3.Close()
	if err := roundTrip(c3, bufio.NewReader(c3), 5*time.Second); err != nil {
		t.Errorf("after Restore: %v", err)
	}
}
