// Package web is carter's web retriever: search through a
// research/search.Provider, then fetch pages through research/egress (host
// allowlist, SSRF guard after DNS, https only, every redirect re-checked,
// size and time caps), reading only URLs the run's URL menu holds. Search
// results are the only thing that adds to the menu, so a fetched URL is
// always one a search engine presented, never one composed from page text
// or a model's output.
//
// The fetch allowlist is the run's --allow-domain list when it has one;
// otherwise it is exactly the host of the URL being fetched, so a redirect
// to any other host is refused by egress (the "redirect off the allowlist"
// attack), and private or loopback addresses are refused at dial time.
//
// web may import research/egress, research/menu, research/search, doctext,
// retrieve and the standard library; it must never import net/http or the
// orchestrator. It is the only carter package that causes network I/O for
// research.
package web

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"

	"copperhead/internal/carter/artifact"
	"copperhead/internal/carter/doctext"
	"copperhead/internal/carter/retrieve"
	"copperhead/internal/research/egress"
	"copperhead/internal/research/menu"
	"copperhead/internal/research/search"
)

// DefaultMaxBytes caps one fetched page or PDF. A manual chapter or a
// datasheet fits well under 10 MiB; anything larger is refused by egress
// before it is read into memory.
const DefaultMaxBytes int64 = 10 << 20

// accepted are the content types a page may have: the formats doctext
// reads. Anything else (images, archives, executables) is refused.
var accepted = []string{"text/html", "application/xhtml+xml", "text/plain", "text/markdown", "application/pdf"}

// Config configures a Retriever.
type Config struct {
	Search       search.Provider
	AllowDomains []string // normalized domains; empty: the fetched URL's own host only
	MaxBytes     int64    // per fetch; 0: DefaultMaxBytes
	// NewClient builds the egress client for one fetch from its allowlist
	// ("host" or "*.domain" entries). nil: egress.New with Log.
	NewClient func(allowHosts []string) *egress.Client
	Log       func(egress.Record)
}

// Retriever searches the web and fetches pages under egress policy.
type Retriever struct {
	cfg  Config
	menu *menu.Menu
}

// New returns a web retriever. cfg.Search is required.
func New(cfg Config) (*Retriever, error) {
	if cfg.Search == nil {
		return nil, errors.New("web retriever: no search provider")
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.NewClient == nil {
		log := cfg.Log
		cfg.NewClient = func(allow []string) *egress.Client {
			return egress.New(egress.Config{AllowHosts: allow, MaxBytes: cfg.MaxBytes, Log: log})
		}
	}
	return &Retriever{cfg: cfg, menu: menu.New(0)}, nil
}

// Name reports "web".
func (r *Retriever) Name() string { return "web" }

// Search runs one search and adds every usable result to the URL menu.
func (r *Retriever) Search(ctx context.Context, query string, n int) ([]retrieve.Candidate, error) {
	results, err := r.cfg.Search.Search(ctx, query, n)
	if err != nil {
		return nil, fmt.Errorf("web search (%s): %w", r.cfg.Search.Name(), err)
	}
	out := make([]retrieve.Candidate, 0, len(results))
	for _, res := range results {
		canonical, ok := r.menu.Add(res.URL, "web_search:"+r.cfg.Search.Name())
		if !ok {
			continue
		}
		out = append(out, retrieve.Candidate{URL: canonical, Title: res.Title, Snippet: res.Snippet, Rank: len(out) + 1})
	}
	return out, nil
}

// Fetch reads one menu URL through egress and extracts its text.
func (r *Retriever) Fetch(ctx context.Context, c retrieve.Candidate) (retrieve.Document, error) {
	entry, ok := r.menu.Lookup(c.URL)
	if !ok {
		return retrieve.Document{}, fmt.Errorf("fetch %s: not in this run's URL menu", c.URL)
	}
	u, err := url.Parse(entry.URL)
	if err != nil {
		return retrieve.Document{}, fmt.Errorf("fetch %s: %w", entry.URL, err)
	}
	allow := make([]string, 0, len(r.cfg.AllowDomains))
	for _, d := range r.cfg.AllowDomains {
		allow = append(allow, "*."+d)
	}
	if len(allow) == 0 {
		allow = []string{u.Hostname()}
	}
	resp, err := r.cfg.NewClient(allow).Get(ctx, entry.URL, r.cfg.MaxBytes, accepted...)
	if err != nil {
		return retrieve.Document{}, fmt.Errorf("fetch: %w", err)
	}
	if resp.Status < 200 || resp.Status > 299 {
		return retrieve.Document{}, fmt.Errorf("fetch %s: HTTP %d", entry.URL, resp.Status)
	}
	final, err := menu.Canonicalize(resp.URL)
	if err != nil {
		return retrieve.Document{}, fmt.Errorf("fetch %s: final URL: %w", entry.URL, err)
	}
	fu, _ := url.Parse(final)
	doc, err := doctext.Extract(ctx, resp.Body, resp.ContentType, path.Base(fu.Path))
	if err != nil {
		return retrieve.Document{}, fmt.Errorf("fetch %s: %w", final, err)
	}
	title := doc.Title
	if c.Title != "" && (title == "" || title == path.Base(fu.Path)) {
		title = c.Title
	}
	return retrieve.Document{URL: final, Title: title, Text: doc.Text, Published: doc.Published,
		Extractor: doc.Extractor, ContentHash: artifact.Hash(resp.Body), Bytes: len(resp.Body)}, nil
}

// SearchHosts are the search APIs' hosts: the only hosts the search client
// may reach.
var SearchHosts = []string{"api.search.brave.com", "api.tavily.com", "openrouter.ai"}

// FromEnv returns the web retriever for the first search provider whose key
// is set (research/search.Available: Brave, Tavily, OpenRouter), else the
// SearXNG instance CARTER_SEARXNG_URL names (https only, like every
// research request).
func FromEnv(getenv func(string) string, allowDomains []string, log func(egress.Record)) (*Retriever, error) {
	client := egress.New(egress.Config{AllowHosts: SearchHosts, Log: log})
	if ps := search.Available(getenv, client); len(ps) > 0 {
		return New(Config{Search: ps[0], AllowDomains: allowDomains, Log: log})
	}
	if base := strings.TrimSpace(getenv(EnvSearXNG)); base != "" {
		u, err := url.Parse(base)
		if err != nil || u.Scheme != "https" || u.Hostname() == "" {
			return nil, fmt.Errorf("%s=%q: want an https:// base URL", EnvSearXNG, base)
		}
		sx := SearXNG{BaseURL: base, Client: egress.New(egress.Config{AllowHosts: []string{u.Hostname()}, Log: log})}
		return New(Config{Search: sx, AllowDomains: allowDomains, Log: log})
	}
	return nil, fmt.Errorf("no web search provider: set %s, %s, %s or %s", search.BraveKeyEnv, search.TavilyKeyEnv, search.OpenRouterKeyEnv, EnvSearXNG)
}
