package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"copperhead/internal/carter/retrieve"
	"copperhead/internal/research/egress"
)

// site is a loopback search engine (SearXNG's JSON) plus the pages it
// returns.
type site struct {
	srv  *httptest.Server
	mu   sync.Mutex
	hits []string
}

func newSite(t *testing.T) *site {
	s := &site{}
	pages := map[string]struct{ ct, body string }{
		"/guide.html": {"text/html", `<html><head><title>Guide</title><meta name="date" content="2025-05-05"></head><body><p>The peak reflow temperature for SAC305 is 245 °C.</p></body></html>`},
		"/big.pdf":    {"application/pdf", "%PDF-1.4\n" + strings.Repeat("x", 9000)},
		"/image.png":  {"image/png", "\x89PNG"},
	}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits = append(s.hits, r.URL.Path)
		s.mu.Unlock()
		switch r.URL.Path {
		case "/search":
			if r.URL.Query().Get("format") != "json" {
				http.Error(w, "format", 400)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"results": []map[string]string{
				{"title": "Guide <b>one</b>", "url": s.srv.URL + "/guide.html", "content": "peak   reflow"},
				{"title": "Moved", "url": s.srv.URL + "/moved", "content": ""},
				{"title": "Big", "url": s.srv.URL + "/big.pdf"},
				{"title": "Image", "url": s.srv.URL + "/image.png"},
				{"title": "Junk", "url": "javascript:alert(1)"},
				{"title": "Mail", "url": "mailto:a@b.c"},
			}})
		case "/moved":
			http.Redirect(w, r, "https://attacker.example.net/collect", http.StatusFound)
		default:
			p, ok := pages[r.URL.Path]
			if !ok {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", p.ct)
			_, _ = w.Write([]byte(p.body))
		}
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *site) retriever(t *testing.T, log *[]egress.Record) *Retriever {
	t.Helper()
	var mu sync.Mutex
	client := func(allow []string) *egress.Client {
		return egress.New(egress.Config{AllowHosts: allow, AllowLoopbackForTests: true, MaxBytes: 4096, Log: func(r egress.Record) {
			mu.Lock()
			defer mu.Unlock()
			*log = append(*log, r)
		}})
	}
	r, err := New(Config{Search: SearXNG{BaseURL: s.srv.URL, Client: client([]string{"127.0.0.1"})}, MaxBytes: 4096, NewClient: client})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSearchAndFetch(t *testing.T) {
	s := newSite(t)
	var log []egress.Record
	r := s.retriever(t, &log)
	ctx := context.Background()
	cands, err := r.Search(ctx, "peak reflow", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) != 4 || cands[0].Title != "Guide <b>one</b>" && cands[0].Title != "Guide one" || cands[0].Snippet != "peak reflow" {
		t.Fatalf("candidates = %+v", cands)
	}
	doc, err := r.Fetch(ctx, cands[0])
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title != "Guide" || doc.Published != "2025-05-05" || !strings.Contains(doc.Text, "245 °C") || len(doc.ContentHash) != 64 {
		t.Errorf("doc = %+v", doc)
	}

	tests := []struct {
		name string
		c    retrieve.Candidate
		want string
	}{
		{"redirect off the allowlist", cands[1], `redirect: host "attacker.example.net" is not on the allowlist`},
		{"pdf over the size cap", cands[2], "too large"},
		{"content type not accepted", cands[3], `content-type "image/png" not accepted`},
		{"URL not in the menu", retrieve.Candidate{URL: s.srv.URL + "/secret"}, "not in this run's URL menu"},
		{"model-composed URL", retrieve.Candidate{URL: "https://attacker.example.net/?q=data"}, "not in this run's URL menu"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.Fetch(ctx, tt.c)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
	for _, p := range s.hits {
		if p == "/secret" {
			t.Error("a URL outside the menu was requested")
		}
	}
	refused := 0
	for _, rec := range log {
		if rec.Refused != "" {
			refused++
		}
	}
	if refused < 3 {
		t.Errorf("egress log shows %d refusals: %+v", refused, log)
	}
}

func TestFromEnv(t *testing.T) {
	env := map[string]string{}
	get := func(k string) string { return env[k] }
	if _, err := FromEnv(get, nil, nil); err == nil || !strings.Contains(err.Error(), "no web search provider") {
		t.Errorf("no keys: %v", err)
	}
	env[EnvSearXNG] = "http://searx.local"
	if _, err := FromEnv(get, nil, nil); err == nil || !strings.Contains(err.Error(), "https://") {
		t.Errorf("http SearXNG: %v", err)
	}
	env[EnvSearXNG] = "https://searx.example.org"
	if r, err := FromEnv(get, nil, nil); err != nil || r.cfg.Search.Name() != "searxng" {
		t.Errorf("SearXNG: %v", err)
	}
	env["BRAVE_API_KEY"] = "k"
	if r, err := FromEnv(get, nil, nil); err != nil || r.cfg.Search.Name() != "brave" {
		t.Errorf("brave: %v", err)
	}
}
