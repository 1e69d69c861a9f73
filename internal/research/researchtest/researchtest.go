// Package researchtest is a fake internet for research tests: one loopback
// HTTPS server that answers for the real API, supplier and manufacturer
// hosts (api.search.brave.com, api.nexar.com, www.ti.com, ...) with a
// certificate naming them, and the egress options that route a client's
// dials to it. Code under test keeps its real URLs and its real allowlist;
// only DNS and the trust roots are stood in for, through egress's explicit
// test options (AllowLoopbackForTests, TLSRootCAs, DialForTests). For a
// test that sets a client's base URL instead, API is one plain loopback
// JSON endpoint that keeps what it is sent.
//
// It listens; it never dials. It is imported by tests only.
package researchtest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"copperhead/internal/research/egress"
)

// Hosts are the names the fake's certificate covers: every provider API
// host, and wildcards for the supplier and manufacturer sites tests use.
// Pass more to NewInternet when a test needs another.
var Hosts = []string{
	"api.search.brave.com", "api.tavily.com", "openrouter.ai",
	"identity.nexar.com", "api.nexar.com", "api.mouser.com",
	"ti.com", "*.ti.com", "mouser.com", "*.mouser.com", "analog.com", "*.analog.com",
	"example.com", "*.example.com", "octopart.com", "*.octopart.com",
}

// Request is one request the fake received.
type Request struct {
	Method, Host, Path, Query string
	Body                      []byte
}

// Internet is the fake. Routes are host plus path; an unrouted request is
// answered 404.
type Internet struct {
	srv     *httptest.Server
	certPEM []byte

	mu     sync.Mutex
	routes map[string]http.Handler
	reqs   []Request
}

// NewInternet starts the fake for the life of tb.
func NewInternet(tb testing.TB, hosts ...string) *Internet {
	tb.Helper()
	n, err := Start(hosts...)
	if err != nil {
		tb.Fatalf("start fake internet: %v", err)
	}
	tb.Cleanup(n.Close)
	return n
}

// Start starts the fake; the caller closes it. hosts extend Hosts.
func Start(hosts ...string) (*Internet, error) {
	cert, certPEM, err := selfSigned(slices.Concat(Hosts, hosts))
	if err != nil {
		return nil, err
	}
	n := &Internet{certPEM: certPEM, routes: map[string]http.Handler{}}
	n.srv = httptest.NewUnstartedServer(http.HandlerFunc(n.serve))
	n.srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	n.srv.StartTLS()
	return n, nil
}

// Close stops the fake.
func (n *Internet) Close() { n.srv.Close() }

// Addr is the fake's loopback address, host:port.
func (n *Internet) Addr() string { return n.srv.Listener.Addr().String() }

// CertPEM is the fake's certificate, PEM-encoded: the only root a client
// pointed at it needs.
func (n *Internet) CertPEM() []byte { return bytes.Clone(n.certPEM) }

// Configure admits the fake to an egress configuration: every dial goes to
// it, loopback is allowed and its certificate trusted. Use it with
// research.SetEgressForTests, or on an egress.Config directly.
func (n *Internet) Configure(c *egress.Config) {
	Configure(n.Addr(), n.certPEM)(c)
}

// Configure returns the adjustment that routes every egress dial to addr
// and trusts certPEM: what Internet.Configure does, for a process (the CLI
// under testscript) that only knows the fake's address and certificate.
func Configure(addr string, certPEM []byte) func(*egress.Config) {
	return func(c *egress.Config) {
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(certPEM)
		c.AllowLoopbackForTests = true
		c.TLSRootCAs = pool
		c.DialForTests = func(string) string { return addr }
	}
}

// Handle routes host+path (path exactly, query ignored) to h.
func (n *Internet) Handle(host, path string, h http.Handler) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.routes[strings.ToLower(host)+path] = h
}

// Serve answers host+path with body under contentType, status 200, for any
// method.
func (n *Internet) Serve(host, path, contentType string, body []byte) {
	n.Handle(host, path, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Write(body)
	}))
}

// Requests returns every request received, in order.
func (n *Internet) Requests() []Request {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.reqs)
}

// Hits counts the requests received for host+path.
func (n *Internet) Hits(host, path string) int {
	c := 0
	for _, r := range n.Requests() {
		if r.Host == strings.ToLower(host) && r.Path == path {
			c++
		}
	}
	return c
}

func (n *Internet) serve(w http.ResponseWriter, r *http.Request) {
	host := strings.ToLower(r.Host)
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	var body bytes.Buffer
	if r.Body != nil {
		body.ReadFrom(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body.Bytes())) // the handler reads it too
	}
	n.mu.Lock()
	n.reqs = append(n.reqs, Request{Method: r.Method, Host: host, Path: r.URL.Path, Query: r.URL.RawQuery, Body: body.Bytes()})
	h := n.routes[host+r.URL.Path]
	n.mu.Unlock()
	if h == nil {
		http.Error(w, "no route for "+host+r.URL.Path, http.StatusNotFound)
		return
	}
	h.ServeHTTP(w, r)
}

// selfSigned makes a one-day ECDSA certificate for names, usable both as
// the server's certificate and as the client's only root.
func selfSigned(names []string) (tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("generate key: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(now.UnixNano()),
		Subject:               pkix.Name{CommonName: "copperhead fake internet"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              names,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("create certificate: %w", err)
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, certPEM, nil
}
