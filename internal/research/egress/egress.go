package egress

import (
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	// DefaultTimeout bounds a whole request, body included. Supplier APIs
	// answer in well under a second and a 10 MB datasheet arrives in a few
	// seconds; anything slower is a stalled server holding a run hostage.
	DefaultTimeout = 30 * time.Second

	// DefaultMaxBytes caps a response body when the caller names no cap.
	// 2 MiB is far above any search or part-data JSON answer; datasheet
	// fetches pass their own (larger) cap.
	DefaultMaxBytes int64 = 2 << 20

	// MaxRedirects is the most redirect hops a request may follow. Real
	// datasheet links take one or two (http->https is refused anyway, CDN
	// hand-off); a longer chain is a loop or an attempt to launder a host.
	MaxRedirects = 5
)

// DefaultAllowHosts is the shipped starting list of search, part-data,
// supplier and manufacturer hosts research may reach. A Config that names
// no hosts gets exactly this list; copperhead's run wiring
// (internal/research.New) passes this list extended by research.allowHosts.
// It is a starting list, not a complete one: a project that needs another
// vendor's datasheets adds that vendor's domain to its config.
// "*.example.com" matches example.com and every subdomain of it.
var DefaultAllowHosts = []string{
	// Web search and model-backed search.
	"api.search.brave.com",
	"api.tavily.com",
	"openrouter.ai",
	// Part data APIs.
	"api.nexar.com",
	"identity.nexar.com",
	"*.digikey.com",
	"api.mouser.com",
	"*.mouser.com",
	"*.lcsc.com",
	"*.jlcpcb.com",
	// Manufacturers (datasheets).
	"*.ti.com",
	"*.st.com",
	"*.analog.com",
	"*.microchip.com",
	"*.espressif.com",
	"*.nxp.com",
	"*.onsemi.com",
	"*.infineon.com",
	"*.diodes.com",
	"*.vishay.com",
	"*.murata.com",
	"*.renesas.com",
	"*.silabs.com",
	"*.nordicsemi.com",
	"*.rohm.com",
	"*.toshiba.com",
	"*.semtech.com",
	"*.monolithicpower.com",
	"*.te.com",
	"*.molex.com",
	"*.wurth-elektronik.com",
	"*.we-online.com",
	"*.kemet.com",
	"*.bourns.com",
	"*.littelfuse.com",
	"*.raspberrypi.com",
}

// Record is one line of the run's network log: a request that was sent (with
// its status, body size and duration) or one that was refused (with why).
// URL has key-bearing query values redacted.
type Record struct {
	Method   string
	URL      string
	Status   int
	Bytes    int64
	Duration time.Duration
	Refused  string // why it was refused, "" if sent
	Error    string // transport failure (timeout, reset, TLS), "" otherwise
}

// Config configures a Client. The zero value is usable: default hosts,
// default timeout and size cap, no log.
type Config struct {
	AllowHosts []string      // exact hosts or "*.example.com" wildcards; empty means DefaultAllowHosts
	Timeout    time.Duration // whole request, default 30s
	MaxBytes   int64         // default response cap, default 2 MiB
	Log        func(Record)  // every request and refusal; nil ignores

	// AllowLoopbackForTests is the ONLY way to reach 127.0.0.0/8 or ::1, and
	// exists for tests that run loopback servers. It also admits loopback IP
	// literals (127.x.x.x, ::1) as hosts without listing them, and permits
	// http:// for those hosts. Nothing else private becomes reachable.
	AllowLoopbackForTests bool

	// TLSRootCAs replaces the system roots; for tests only (pass
	// httptest.Server.Client()'s roots, or the server's certificate).
	TLSRootCAs *x509.CertPool
	// DialForTests, when set (tests only), maps every dial address
	// ("host:port") before the guarded dialer resolves it, standing in for
	// DNS answers a test cannot control: real provider and supplier URLs
	// then reach a loopback fake. The SSRF guard still judges the address
	// actually dialled, so a rewrite to loopback is refused unless
	// AllowLoopbackForTests is also set.
	DialForTests func(addr string) string
}

// RefusedError is returned for every request the guard refuses; test for it
// with errors.As. URL has key-bearing query values redacted.
type RefusedError struct {
	URL    string
	Reason string
}

func (e *RefusedError) Error() string {
	if e.URL == "" {
		return "egress refused: " + e.Reason
	}
	return "egress refused " + e.URL + ": " + e.Reason
}

// Response is a fully read, size-checked response.
type Response struct {
	URL         string // final, after redirects
	Status      int
	Header      http.Header
	Body        []byte
	ContentType string // media type only, lower-case, without parameters
}

// Client is the guarded research HTTP client. It is safe for concurrent use.
type Client struct {
	cfg   Config
	allow []string
	hc    *http.Client

	// rewriteAddr, when set (tests only), maps the dial address before the
	// guarded dialer resolves it, standing in for DNS answers we cannot
	// control. The SSRF guard still sees the address actually dialled.
	rewriteAddr func(addr string) string
}

// New builds a Client from cfg, filling defaults.
func New(cfg Config) *Client {
	if len(cfg.AllowHosts) == 0 {
		cfg.AllowHosts = DefaultAllowHosts
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	c := &Client{cfg: cfg, rewriteAddr: cfg.DialForTests}
	for _, h := range cfg.AllowHosts {
		h = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(h)), ".")
		if h != "" {
			c.allow = append(c.allow, h)
		}
	}
	dialer := &net.Dialer{
		Timeout:   cfg.Timeout,
		KeepAlive: 30 * time.Second,
		ControlContext: func(_ context.Context, network, address string, _ syscall.RawConn) error {
			return c.checkDialAddr(network, address)
		},
	}
	transport := &http.Transport{
		// Environment proxies are ignored: through a proxy the dial guard
		// would only ever see the proxy's address, not the destination.
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if c.rewriteAddr != nil {
				addr = c.rewriteAddr(addr)
			}
			return dialer.DialContext(ctx, network, addr)
		},
		TLSClientConfig:       &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: cfg.TLSRootCAs},
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: cfg.Timeout,
		MaxIdleConns:          16,
		IdleConnTimeout:       90 * time.Second,
		// Go's transparent gzip would expand without bound; we ask for gzip
		// ourselves and decompress under the size cap (see readBody).
		DisableCompression: true,
	}
	c.hc = &http.Client{
		Transport:     transport,
		CheckRedirect: c.checkRedirect,
	}
	return c
}

// Get fetches rawURL exactly as given (canonicalize it with the menu first).
// maxBytes 0 means the configured cap; accept lists allowed content-type
// prefixes ("application/pdf", "text/"); none accepts any.
func (c *Client) Get(ctx context.Context, rawURL string, maxBytes int64, accept ...string) (*Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		reason := "unparseable URL"
		c.log(Record{Method: http.MethodGet, URL: RedactURL(rawURL), Refused: reason})
		return nil, &RefusedError{URL: RedactURL(rawURL), Reason: reason}
	}
	return c.do(ctx, req, maxBytes, accept)
}

// Do sends req (POST for JSON, GraphQL and token APIs) under the same guards
// as Get. The request's own context is replaced by ctx plus the timeout.
func (c *Client) Do(ctx context.Context, req *http.Request, maxBytes int64) (*Response, error) {
	return c.do(ctx, req, maxBytes, nil)
}

func (c *Client) do(ctx context.Context, req *http.Request, maxBytes int64, accept []string) (*Response, error) {
	start := time.Now()
	if maxBytes <= 0 {
		maxBytes = c.cfg.MaxBytes
	}
	logged := RedactURL(req.URL.String())
	refuse := func(status int, reason string) (*Response, error) {
		c.log(Record{Method: req.Method, URL: logged, Status: status, Duration: time.Since(start), Refused: reason})
		return nil, &RefusedError{URL: logged, Reason: reason}
	}
	if reason := c.checkURL(req.URL); reason != "" {
		return refuse(0, reason)
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req = req.WithContext(context.WithValue(ctx, hopStartKey{}, &start))
	if req.Header.Get("Accept-Encoding") == "" {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		var refused *RefusedError
		if errors.As(err, &refused) {
			reason := refused.Reason
			if refused.URL != "" && refused.URL != logged {
				reason += " (at " + refused.URL + ")"
			}
			return refuse(0, reason)
		}
		c.log(Record{Method: req.Method, URL: logged, Duration: time.Since(start), Error: errorText(err)})
		return nil, fmt.Errorf("%s %s: %w", req.Method, logged, unwrapURLError(err))
	}
	defer resp.Body.Close()
	final := resp.Request.URL.String()
	logged = RedactURL(final)

	contentType := ""
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		if mt, _, perr := mime.ParseMediaType(ct); perr == nil {
			contentType = strings.ToLower(mt)
		} else {
			contentType = strings.ToLower(strings.TrimSpace(strings.SplitN(ct, ";", 2)[0]))
		}
	}
	if len(accept) > 0 && !acceptable(contentType, accept) {
		return refuse(resp.StatusCode, fmt.Sprintf("content-type %q not accepted (want %s)", contentType, strings.Join(accept, ", ")))
	}
	if resp.ContentLength > maxBytes && resp.Header.Get("Content-Encoding") == "" {
		return refuse(resp.StatusCode, fmt.Sprintf("too large: %d bytes declared, cap %d", resp.ContentLength, maxBytes))
	}
	body, reason, err := readBody(resp, maxBytes)
	if reason != "" {
		return refuse(resp.StatusCode, reason)
	}
	if err != nil {
		c.log(Record{Method: req.Method, URL: logged, Status: resp.StatusCode, Duration: time.Since(start), Error: errorText(err)})
		return nil, fmt.Errorf("%s %s: read body: %w", req.Method, logged, err)
	}
	c.log(Record{Method: req.Method, URL: logged, Status: resp.StatusCode, Bytes: int64(len(body)), Duration: time.Since(start)})
	header := resp.Header.Clone()
	if header.Get("Content-Encoding") != "" {
		// The body is decoded; the header must not claim otherwise.
		header.Del("Content-Encoding")
		header.Del("Content-Length")
	}
	return &Response{URL: final, Status: resp.StatusCode, Header: header, Body: body, ContentType: contentType}, nil
}

// readBody reads at most maxBytes of (decoded) body. A refusal reason is
// returned when the body is over the cap or in an encoding we did not ask for.
// Both the wire bytes and the decoded bytes are capped, so a gzip bomb stops
// at maxBytes+1 decoded bytes.
func readBody(resp *http.Response, maxBytes int64) ([]byte, string, error) {
	var r io.Reader = io.LimitReader(resp.Body, maxBytes+1)
	switch enc := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, "", fmt.Errorf("gzip: %w", err)
		}
		defer zr.Close()
		r = zr
	default:
		return nil, fmt.Sprintf("unsupported content-encoding %q", enc), nil
	}
	body, err := io.ReadAll(io.LimitReader(r, maxBytes+1))
	if int64(len(body)) > maxBytes {
		return nil, fmt.Sprintf("too large: over the %d-byte cap", maxBytes), nil
	}
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) && resp.Header.Get("Content-Encoding") != "" {
			// The wire cap cut a compressed stream short: it was oversized.
			return nil, fmt.Sprintf("too large: over the %d-byte cap", maxBytes), nil
		}
		return nil, "", err
	}
	return body, "", nil
}

func acceptable(contentType string, accept []string) bool {
	for _, a := range accept {
		if a = strings.ToLower(strings.TrimSpace(a)); a != "" && strings.HasPrefix(contentType, a) {
			return true
		}
	}
	return false
}

type hopStartKey struct{}

// checkRedirect re-applies the URL guard to every hop and caps the chain.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	prev := via[len(via)-1]
	if req.Response != nil {
		rec := Record{Method: prev.Method, URL: RedactURL(prev.URL.String()), Status: req.Response.StatusCode}
		if start, ok := req.Context().Value(hopStartKey{}).(*time.Time); ok {
			rec.Duration = time.Since(*start)
		}
		c.log(rec)
	}
	target := RedactURL(req.URL.String())
	if len(via) > MaxRedirects {
		return &RefusedError{URL: target, Reason: fmt.Sprintf("too many redirects (more than %d)", MaxRedirects)}
	}
	if reason := c.checkURL(req.URL); reason != "" {
		return &RefusedError{URL: target, Reason: "redirect: " + reason}
	}
	return nil
}

// checkURL is the pre-dial guard: scheme, userinfo and host allowlist. It
// returns a refusal reason, or "" when the URL may be requested.
func (c *Client) checkURL(u *url.URL) string {
	if u.User != nil {
		return "userinfo in URL"
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "" {
		return "no host"
	}
	for _, r := range host {
		if r > 0x7f {
			return "non-ASCII host (use the punycode form)"
		}
	}
	loopback := c.cfg.AllowLoopbackForTests && isLoopbackLiteral(host)
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if !loopback {
			return "http is not allowed (https only)"
		}
	default:
		return fmt.Sprintf("scheme %q is not allowed (https only)", u.Scheme)
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
			return "bad port"
		}
	}
	if loopback || hostAllowed(host, c.allow) {
		return ""
	}
	return fmt.Sprintf("host %q is not on the allowlist", host)
}

func isLoopbackLiteral(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && (ip.Equal(net.IPv6loopback) || (ip.To4() != nil && ip.To4()[0] == 127 && !strings.Contains(host, ":")))
}

// hostAllowed matches a lower-case host against exact entries and "*.domain"
// wildcards (which match the domain itself and any subdomain).
func hostAllowed(host string, allow []string) bool {
	for _, pattern := range allow {
		if domain, ok := strings.CutPrefix(pattern, "*."); ok {
			if host == domain || strings.HasSuffix(host, "."+domain) {
				return true
			}
			continue
		}
		if host == pattern {
			return true
		}
	}
	return false
}

// checkDialAddr is the SSRF guard: it runs in the dialer's Control hook on the
// resolved address the socket is about to connect to.
func (c *Client) checkDialAddr(network, address string) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return &RefusedError{Reason: "dial: bad address " + address}
	}
	if reason := IPRefusal(host, c.cfg.AllowLoopbackForTests); reason != "" {
		return &RefusedError{Reason: "dial " + network + " " + address + ": " + reason}
	}
	return nil
}

func (c *Client) log(r Record) {
	if c.cfg.Log != nil {
		c.cfg.Log(r)
	}
}

func errorText(err error) string {
	return unwrapURLError(err).Error()
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
