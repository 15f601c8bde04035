package exporter

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/monitor"
)

// selfSigned writes a certificate for 127.0.0.1 and its key into dir.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "lagscope test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// A web config file (the Prometheus exporters' format) turns on TLS and
// basic auth; the exporter serves while its one pair is unreachable.
func TestTheWebConfigFileGivesTLSAndBasicAuth(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile, pool := selfSigned(t, dir)
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	web := filepath.Join(dir, "web.yml")
	cfg := "tls_server_config:\n  cert_file: " + certFile + "\n  key_file: " + keyFile + "\nbasic_auth_users:\n  prom: " + string(hash) + "\n"
	if err := os.WriteFile(web, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	pair := monitor.Options{Pair: "gone", Diagnose: diagnose.Options{Publisher: "host=/nonexistent-lagscope-test port=1 connect_timeout=1"}}
	if err := pair.Validate(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Listen: "127.0.0.1:0", WebConfig: web, Pairs: []monitor.Options{pair}, Ready: func(a net.Addr) { addr <- a }})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("exporter: %v", err)
		}
	}()
	url := "https://" + (<-addr).String() + "/metrics"
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 5 * time.Second}
	get := func(user, pass string) int {
		req, _ := http.NewRequest("GET", url, nil)
		if user != "" {
			req.SetBasicAuth(user, pass)
		}
		r, err := client.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
		r.Body.Close()
		return r.StatusCode
	}
	if c := get("", ""); c != http.StatusUnauthorized {
		t.Errorf("no credentials: status %d, want 401", c)
	}
	if c := get("prom", "wrong"); c != http.StatusUnauthorized {
		t.Errorf("wrong password: status %d, want 401", c)
	}
	if c := get("prom", "s3cret"); c != http.StatusOK {
		t.Errorf("right password over TLS: status %d, want 200", c)
	}
	// Plain HTTP to the TLS listener gets a 400 response, never metrics.
	if r, err := http.Get("http://" + url[len("https://"):]); err == nil {
		r.Body.Close()
		if r.StatusCode == http.StatusOK {
			t.Error("plain HTTP served metrics on a TLS listener")
		}
	}
}

func TestABadWebConfigFileIsAUsageError(t *testing.T) {
	web := filepath.Join(t.TempDir(), "web.yml")
	os.WriteFile(web, []byte("tls_server_config:\n  cert_file: /nonexistent.pem\n"), 0o600)
	o := Options{WebConfig: web, Pairs: []monitor.Options{{Pair: "a"}}}
	if err := o.Validate(); err == nil {
		t.Error("a web config naming a missing certificate passed Validate")
	}
}
