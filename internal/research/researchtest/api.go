package researchtest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
)

// API is a plain loopback HTTP server standing in for one provider's JSON
// API, for a test that points a client's base URL at it: every request is
// answered with one status and body, and kept.
type API struct {
	URL string

	mu     sync.Mutex
	reqs   []APIRequest
	status int
	body   []byte
}

// APIRequest is one request an API received.
type APIRequest struct {
	Method string
	Path   string
	Query  url.Values
	Header http.Header
	Body   []byte
}

// NewAPI starts an API answering status and body (as application/json)
// for the life of tb.
func NewAPI(tb testing.TB, status int, body []byte) *API {
	tb.Helper()
	a := &API{status: status, body: body}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		a.mu.Lock()
		a.reqs = append(a.reqs, APIRequest{r.Method, r.URL.Path, r.URL.Query(), r.Header.Clone(), b})
		a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.status)
		_, _ = w.Write(a.body)
	}))
	tb.Cleanup(srv.Close)
	a.URL = srv.URL
	return a
}

// Requests is what the API has received, oldest first.
func (a *API) Requests() []APIRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]APIRequest(nil), a.reqs...)
}

// Only is the one request the API received, failing tb unless there was
// exactly one.
func (a *API) Only(tb testing.TB) APIRequest {
	tb.Helper()
	reqs := a.Requests()
	if len(reqs) != 1 {
		tb.Fatalf("got %d requests, want 1", len(reqs))
	}
	return reqs[0]
}
