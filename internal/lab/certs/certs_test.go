package certs

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"testing"
	"time"
)

// A certificate the CA issues verifies for its hosts against the CA, and
// not for another host, against another CA, or once expired.
func TestIssuedCertificatesVerify(t *testing.T) {
	ca, err := NewCA("lab CA", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	other, err := NewCA("other CA", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	srv, err := ca.Issue([]string{"localhost", "127.0.0.1"}, now.Add(-time.Minute), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(srv.CertPEM, srv.KeyPEM)
	if err != nil {
		t.Fatalf("the certificate and key do not match: %v", err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	pool := func(c *CA) *x509.CertPool {
		p := x509.NewCertPool()
		p.AppendCertsFromPEM(c.PEM)
		return p
	}
	verify := func(roots *x509.CertPool, host string, at time.Time) error {
		_, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: host, CurrentTime: at})
		return err
	}
	for _, h := range []string{"localhost", "127.0.0.1"} {
		if err := verify(pool(ca), h, now); err != nil {
			t.Errorf("%s: %v", h, err)
		}
	}
	var hostErr x509.HostnameError
	if err := verify(pool(ca), "db.example", now); !errors.As(err, &hostErr) {
		t.Errorf("another host name: %v, want a HostnameError", err)
	}
	var authErr x509.UnknownAuthorityError
	if err := verify(pool(other), "localhost", now); !errors.As(err, &authErr) {
		t.Errorf("another CA: %v, want an UnknownAuthorityError", err)
	}
	var invalid x509.CertificateInvalidError
	if err := verify(pool(ca), "localhost", now.Add(2*time.Hour)); !errors.As(err, &invalid) || invalid.Reason != x509.Expired {
		t.Errorf("after it expired: %v, want Expired", err)
	}
}
