package egress

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeSite is a loopback TLS server whose certificate covers example.com and
// *.example.com (Go's httptest certificate), so tests can address it by
// hostname through the client's rewriteAddr hook.
type fakeSite struct {
	srv  *httptest.Server
	port string
	hits atomic.Int64
}

func newFakeSite(t *testing.T) *fakeSite {
	t.Helper()
	s := &fakeSite{}
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		fmt.Fprint(w, "%PDF-1.7 fake")
	})
	mux.HandleFunc("/html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<html></html>")
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(bytes.Repeat([]byte("x"), 3000))
	})
	mux.HandleFunc("/big-chunked", func(w http.ResponseWriter, r *http.Request) {
		for range 30 {
			w.Write(bytes.Repeat([]byte("x"), 100))
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/gzip", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Type", "application/json")
		zw := gzip.NewWriter(w)
		fmt.Fprint(zw, `{"ok":true}`)
		zw.Close()
	})
	mux.HandleFunc("/bomb", func(w http.ResponseWriter, r *http.Request) {
		// 64 MiB of zeros compresses to ~64 KiB; the client must stop at its cap.
		w.Header().Set("Content-Encoding", "gzip")
		zw, _ := gzip.NewWriterLevel(w, gzip.BestCompression)
		zero := make([]byte, 1<<20)
		for range 64 {
			if _, err := zw.Write(zero); err != nil {
				return
			}
		}
		zw.Close()
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	mux.HandleFunc("/loop/", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/loop/"))
		http.Redirect(w, r, fmt.Sprintf("/loop/%d", n+1), http.StatusFound)
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.Copy(w, r.Body)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
		}
	})
	s.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.srv.Close)
	_, s.port, _ = net.SplitHostPort(s.srv.Listener.Addr().String())
	return s
}

// url addresses the site by a hostname; the client's rewriteAddr sends every
// dial to the loopback listener.
func (s *fakeSite) url(host, path string) string {
	return "https://" + host + ":" + s.port + path
}

type logSink struct {
	mu   sync.Mutex
	recs []Record
}

func (l *logSink) log(r Record) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.recs = append(l.recs, r)
}

func (l *logSink) all() []Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Record(nil), l.recs...)
}

// newTestClient returns a client allowed to dial loopback, with every dial
// redirected to the fake site's listener.
func newTestClient(s *fakeSite, cfg Config) (*Client, *logSink) {
	sink := &logSink{}
	cfg.AllowLoopbackForTests = true
	cfg.TLSRootCAs = s.srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	cfg.Log = sink.log
	if cfg.AllowHosts == nil {
		cfg.AllowHosts = []string{"*.example.com"}
	}
	c := New(cfg)
	c.rewriteAddr = func(string) string { return "127.0.0.1:" + s.port }
	return c, sink
}

func wantRefused(t *testing.T, err error, contains string) *RefusedError {
	t.Helper()
	var refused *RefusedError
	if !errors.As(err, &refused) {
		t.Fatalf("err = %v, want RefusedError containing %q", err, contains)
	}
	if !strings.Contains(refused.Reason, contains) {
		t.Fatalf("refusal reason %q does not contain %q", refused.Reason, contains)
	}
	return refused
}

func TestHostAllowed(t *testing.T) {
	allow := []string{"api.nexar.com", "*.mouser.com"}
	tests := []struct {
		host string
		want bool
	}{
		{"api.nexar.com", true},
		{"identity.nexar.com", false},
		{"nexar.com", false},
		{"www.mouser.com", true},
		{"eu.api.mouser.com", true},
		{"mouser.com", true},
		{"evilmouser.com", false},
		{"mouser.com.evil.example", false},
		{"api.nexar.com.evil.example", false},
	}
	for _, tt := range tests {
		if got := hostAllowed(tt.host, allow); got != tt.want {
			t.Errorf("hostAllowed(%q) = %v, want %v", tt.host, got, tt.want)
		}
	}
}

func TestGetAllowlist(t *testing.T) {
	s := newFakeSite(t)
	c, sink := newTestClient(s, Config{})
	ctx := context.Background()

	for _, host := range []string{"parts.example.com", "example.com"} {
		resp, err := c.Get(ctx, s.url(host, "/ok"), 0)
		if err != nil {
			t.Fatalf("Get %s: %v", host, err)
		}
		if resp.Status != 200 || string(resp.Body) != "%PDF-1.7 fake" || resp.ContentType != "application/pdf" {
			t.Fatalf("Get %s = %d %q %q", host, resp.Status, resp.Body, resp.ContentType)
		}
	}
	before := s.hits.Load()
	for _, raw := range []string{
		s.url("evil.test", "/ok"),
		s.url("example.com.evil.test", "/ok"),
		"https://2130706433/ok", // decimal 127.0.0.1
		"https://0177.0.0.1/ok", // octal 127.0.0.1
		"https://0x7f000001/ok", // hex 127.0.0.1
		"https://10.0.0.1/ok",   // private literal
		"https://169.254.169.254/latest/meta-data/",
		"https://[::ffff:127.0.0.1]/ok",
		"https://parts.example.com@evil.test/ok", // userinfo trick
		"http://parts.example.com/ok",            // http
		"ftp://parts.example.com/ok",
	} {
		_, err := c.Get(ctx, raw, 0)
		var refused *RefusedError
		if !errors.As(err, &refused) {
			t.Errorf("Get(%q) err = %v, want RefusedError", raw, err)
		}
	}
	if got := s.hits.Load(); got != before {
		t.Errorf("refused requests reached the server %d times", got-before)
	}
	recs := sink.all()
	if last := recs[len(recs)-1]; last.Refused == "" || last.Method != "GET" {
		t.Errorf("last log record = %+v, want a refusal", last)
	}
}

func TestDefaultAllowHosts(t *testing.T) {
	c := New(Config{})
	for _, u := range []string{"https://api.nexar.com/graphql", "https://www.ti.com/lit/ds/x.pdf", "https://ti.com/x.pdf", "https://api.search.brave.com/res/v1/web/search"} {
		if r := c.checkURL(mustParse(t, u)); r != "" {
			t.Errorf("%s refused by default list: %s", u, r)
		}
	}
	if r := c.checkURL(mustParse(t, "https://pastebin.com/x")); r == "" {
		t.Error("pastebin.com allowed by default list")
	}
}

func TestRedirects(t *testing.T) {
	s := newFakeSite(t)
	c, sink := newTestClient(s, Config{})
	ctx := context.Background()

	// An allowed cross-site hop is followed, and the final URL reported.
	resp, err := c.Get(ctx, s.url("www.example.com", "/redirect?to=")+s.url("cdn.example.com", "/ok"), 0)
	if err != nil {
		t.Fatalf("allowed redirect: %v", err)
	}
	if want := s.url("cdn.example.com", "/ok"); resp.URL != want {
		t.Errorf("final URL = %q, want %q", resp.URL, want)
	}
	recs := sink.all()
	if len(recs) != 2 || recs[0].Status != http.StatusFound || recs[1].Status != 200 {
		t.Errorf("log = %+v, want a 302 hop then a 200", recs)
	}

	// A hop to a host off the allowlist is refused before it is dialled.
	before := s.hits.Load()
	_, err = c.Get(ctx, s.url("www.example.com", "/redirect?to=")+s.url("evil.test", "/ok"), 0)
	wantRefused(t, err, "not on the allowlist")
	if got := s.hits.Load() - before; got != 1 {
		t.Errorf("server hit %d times, want 1 (the redirect only)", got)
	}

	// A downgrade to http is refused.
	_, err = c.Get(ctx, s.url("www.example.com", "/redirect?to=")+"http://www.example.com:"+s.port+"/ok", 0)
	wantRefused(t, err, "https only")

	// The chain is capped.
	before = s.hits.Load()
	_, err = c.Get(ctx, s.url("www.example.com", "/loop/0"), 0)
	wantRefused(t, err, "too many redirects")
	if got := s.hits.Load() - before; got != MaxRedirects+1 {
		t.Errorf("server hit %d times, want %d", got, MaxRedirects+1)
	}
}

func TestIPRefusal(t *testing.T) {
	tests := []struct {
		ip            string
		allowLoopback bool
		refused       bool
	}{
		{"10.0.0.1", false, true},
		{"172.16.5.4", false, true},
		{"192.168.1.1", false, true},
		{"169.254.169.254", false, true},
		{"127.0.0.1", false, true},
		{"127.1.2.3", false, true},
		{"::1", false, true},
		{"::ffff:127.0.0.1", false, true},
		{"::ffff:10.0.0.1", false, true},
		{"::ffff:169.254.169.254", false, true},
		{"::127.0.0.1", false, true},      // IPv4-compatible
		{"64:ff9b::a00:1", false, true},   // NAT64 of 10.0.0.1
		{"2002:a9fe:a9fe::", false, true}, // 6to4 of 169.254.169.254
		{"0.0.0.0", false, true},
		{"::", false, true},
		{"100.64.0.1", false, true},
		{"100.127.255.255", false, true},
		{"fe80::1", false, true},
		{"fe80::1%eth0", false, true},
		{"fc00::1", false, true},
		{"fd12:3456::1", false, true},
		{"224.0.0.1", false, true},
		{"ff02::1", false, true},
		{"255.255.255.255", false, true},
		{"not-an-ip", false, true},
		{"8.8.8.8", false, false},
		{"100.128.0.1", false, false},
		{"2606:4700:4700::1111", false, false},
		{"::ffff:8.8.8.8", false, false},
		{"127.0.0.1", true, false},
		{"::1", true, false},
		{"::ffff:127.0.0.1", true, true},
		{"10.0.0.1", true, true},
		{"169.254.169.254", true, true},
	}
	for _, tt := range tests {
		reason := IPRefusal(tt.ip, tt.allowLoopback)
		if (reason != "") != tt.refused {
			t.Errorf("IPRefusal(%q, %v) = %q, want refused=%v", tt.ip, tt.allowLoopback, reason, tt.refused)
		}
	}
}

// TestDialGuard proves the guard runs on the resolved address at dial time:
// an allowed hostname that "resolves" to a private or metadata address is
// refused, and loopback is refused without the test option.
func TestDialGuard(t *testing.T) {
	s := newFakeSite(t)
	ctx := context.Background()
	for _, addr := range []string{"10.0.0.1:443", "169.254.169.254:443", "[::ffff:10.0.0.1]:443", "[fd00::1]:443"} {
		c, sink := newTestClient(s, Config{})
		c.rewriteAddr = func(string) string { return addr }
		_, err := c.Get(ctx, s.url("parts.example.com", "/ok"), 0)
		wantRefused(t, err, "dial")
		if recs := sink.all(); len(recs) != 1 || recs[0].Refused == "" {
			t.Errorf("%s: log = %+v, want one refusal", addr, recs)
		}
	}

	// Without the test option, the loopback server itself is unreachable
	// even when its address is explicitly allowed.
	sink := &logSink{}
	c := New(Config{
		AllowHosts: []string{"127.0.0.1", "*.example.com"},
		TLSRootCAs: s.srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs,
		Log:        sink.log,
	})
	before := s.hits.Load()
	_, err := c.Get(ctx, s.srv.URL+"/ok", 0)
	wantRefused(t, err, "loopback")
	c.rewriteAddr = func(string) string { return "127.0.0.1:" + s.port }
	_, err = c.Get(ctx, s.url("parts.example.com", "/ok"), 0)
	wantRefused(t, err, "loopback")
	// The dialer sees an IPv4-mapped address in its IPv4 form; either way it is loopback.
	c.rewriteAddr = func(string) string { return "[::ffff:127.0.0.1]:" + s.port }
	_, err = c.Get(ctx, s.url("parts.example.com", "/ok"), 0)
	wantRefused(t, err, "loopback")
	if s.hits.Load() != before {
		t.Error("loopback server was reached without AllowLoopbackForTests")
	}
}

func TestLoopbackHTTPForTests(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "plain")
	}))
	defer srv.Close()
	c := New(Config{AllowLoopbackForTests: true, AllowHosts: []string{"api.nexar.com"}})
	resp, err := c.Get(context.Background(), srv.URL, 0)
	if err != nil || string(resp.Body) != "plain" {
		t.Fatalf("Get loopback http with test option = %v, %v", resp, err)
	}
	_, err = New(Config{AllowHosts: []string{"127.0.0.1"}}).Get(context.Background(), srv.URL, 0)
	wantRefused(t, err, "https only")
}

func TestSizeAndEncoding(t *testing.T) {
	s := newFakeSite(t)
	c, sink := newTestClient(s, Config{MaxBytes: 1000})
	ctx := context.Background()

	_, err := c.Get(ctx, s.url("www.example.com", "/big"), 0)
	wantRefused(t, err, "too large")
	_, err = c.Get(ctx, s.url("www.example.com", "/big-chunked"), 0)
	wantRefused(t, err, "too large")
	resp, err := c.Get(ctx, s.url("www.example.com", "/big"), 5000)
	if err != nil || len(resp.Body) != 3000 {
		t.Fatalf("Get /big with a 5000-byte cap = %v", err)
	}

	// A gzip body is decoded, and the header no longer claims gzip.
	resp, err = c.Get(ctx, s.url("www.example.com", "/gzip"), 0, "application/json")
	if err != nil || string(resp.Body) != `{"ok":true}` || resp.Header.Get("Content-Encoding") != "" {
		t.Fatalf("Get /gzip = %+v, %v", resp, err)
	}

	// A decompression bomb stops at the cap.
	_, err = c.Get(ctx, s.url("www.example.com", "/bomb"), 1<<20)
	wantRefused(t, err, "too large")

	recs := sink.all()
	for _, r := range recs {
		if r.Bytes > 5000 {
			t.Errorf("record %+v exceeds every cap", r)
		}
	}
}

func TestContentType(t *testing.T) {
	s := newFakeSite(t)
	c, sink := newTestClient(s, Config{})
	ctx := context.Background()
	_, err := c.Get(ctx, s.url("www.example.com", "/html"), 0, "application/pdf")
	wantRefused(t, err, "content-type")
	if recs := sink.all(); recs[0].Status != 200 || recs[0].Refused == "" {
		t.Errorf("log = %+v, want status 200 with a refusal", recs)
	}
	resp, err := c.Get(ctx, s.url("www.example.com", "/html"), 0, "application/pdf", "TEXT/")
	if err != nil || resp.ContentType != "text/html" {
		t.Fatalf("accept text/ = %v, %v", resp, err)
	}
}

func TestDoPostAndLog(t *testing.T) {
	s := newFakeSite(t)
	c, sink := newTestClient(s, Config{})
	req, err := http.NewRequest(http.MethodPost, s.url("api.example.com", "/echo"), strings.NewReader(`{"query":"{ supSearch }"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(context.Background(), req, 0)
	if err != nil || string(resp.Body) != `{"query":"{ supSearch }"}` {
		t.Fatalf("Do = %+v, %v", resp, err)
	}
	recs := sink.all()
	if len(recs) != 1 {
		t.Fatalf("log = %+v", recs)
	}
	r := recs[0]
	if r.Method != "POST" || r.Status != 200 || r.Bytes != int64(len(resp.Body)) || r.Duration <= 0 || r.Refused != "" || r.URL != s.url("api.example.com", "/echo") {
		t.Errorf("record = %+v", r)
	}

	bad, _ := http.NewRequest(http.MethodPost, "https://evil.test/collect", strings.NewReader("secret"))
	_, err = c.Do(context.Background(), bad, 0)
	wantRefused(t, err, "allowlist")
}

func TestTimeout(t *testing.T) {
	s := newFakeSite(t)
	c, sink := newTestClient(s, Config{Timeout: 200 * time.Millisecond})
	_, err := c.Get(context.Background(), s.url("www.example.com", "/slow"), 0)
	if err == nil {
		t.Fatal("slow server did not time out")
	}
	if recs := sink.all(); len(recs) != 1 || recs[0].Error == "" {
		t.Errorf("log = %+v, want one error record", recs)
	}
}

func TestEnvironmentProxyIgnored(t *testing.T) {
	t.Setenv("HTTPS_PROXY", "http://127.0.0.1:1")
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:1")
	s := newFakeSite(t)
	c, _ := newTestClient(s, Config{})
	if _, err := c.Get(context.Background(), s.url("www.example.com", "/ok"), 0); err != nil {
		t.Fatalf("request went through the environment proxy: %v", err)
	}
}

func TestRedaction(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://api.example.com/s?q=tps62130&key=SEKRIT", "https://api.example.com/s?q=tps62130&key=REDACTED"},
		{"https://api.example.com/s?apikey=A&token=B&x=1", "https://api.example.com/s?apikey=REDACTED&token=REDACTED&x=1"},
		{"https://api.example.com/s?API_KEY=A&access_token=B&client_secret=C", "https://api.example.com/s?API_KEY=REDACTED&access_token=REDACTED&client_secret=REDACTED"},
		{"https://u:p@api.example.com/s", "https://api.example.com/s"},
		{"https://api.example.com/plain?q=1", "https://api.example.com/plain?q=1"},
	}
	for _, tt := range tests {
		if got := RedactURL(tt.in); got != tt.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}

	s := newFakeSite(t)
	c, sink := newTestClient(s, Config{})
	ctx := context.Background()
	if _, err := c.Get(ctx, s.url("api.example.com", "/ok?q=1&key=SEKRIT1"), 0); err != nil {
		t.Fatal(err)
	}
	_, err := c.Get(ctx, "https://evil.test/x?apikey=SEKRIT2", 0)
	if err == nil || strings.Contains(err.Error(), "SEKRIT") {
		t.Errorf("refusal error leaks the key: %v", err)
	}
	for _, r := range sink.all() {
		if strings.Contains(r.URL, "SEKRIT") || strings.Contains(r.Refused, "SEKRIT") {
			t.Errorf("log record leaks a key: %+v", r)
		}
	}
}

func mustParse(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
