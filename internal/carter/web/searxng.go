package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"copperhead/internal/research/egress"
	"copperhead/internal/research/search"
	"copperhead/internal/textfmt"
)

// EnvSearXNG names a SearXNG instance (its base URL, e.g.
// https://searx.example.org) to search through when no keyed provider is
// set. SearXNG needs no key, which makes it the self-hosted option.
const EnvSearXNG = "CARTER_SEARXNG_URL"

// maxSearchResponse caps a results page; real ones are tens of kilobytes.
const maxSearchResponse = 2 << 20

// SearXNG searches a SearXNG instance's JSON API (GET /search?format=json).
// Its results are third-party text like any provider's: cleaned to title,
// URL and a short snippet, and never followed except through the URL menu.
type SearXNG struct {
	BaseURL string // without the /search path
	Client  *egress.Client
}

// Name reports "searxng".
func (s SearXNG) Name() string { return "searxng" }

type searxResponse struct {
	Results []struct {
		Title         string `json:"title"`
		URL           string `json:"url"`
		Content       string `json:"content"`
		PublishedDate string `json:"publishedDate"`
	} `json:"results"`
}

// Search runs one query and returns up to n results.
func (s SearXNG) Search(ctx context.Context, query string, n int) ([]search.Result, error) {
	if n <= 0 || n > 20 {
		n = 20
	}
	q := url.Values{}
	q.Set("q", query)
	q.Set("format", "json")
	q.Set("count", strconv.Itoa(n))
	resp, err := s.Client.Get(ctx, strings.TrimRight(s.BaseURL, "/")+"/search?"+q.Encode(), maxSearchResponse, "application/json")
	if err != nil {
		return nil, fmt.Errorf("searxng search: %w", err)
	}
	if resp.Status < 200 || resp.Status > 299 {
		return nil, fmt.Errorf("searxng search: HTTP %d", resp.Status)
	}
	var body searxResponse
	if err := json.Unmarshal(resp.Body, &body); err != nil {
		return nil, fmt.Errorf("searxng search: decode response: %w", err)
	}
	out := make([]search.Result, 0, len(body.Results))
	for _, r := range body.Results {
		if len(out) == n {
			break
		}
		u, err := url.Parse(strings.TrimSpace(r.URL))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			continue
		}
		out = append(out, search.Result{Title: textfmt.Clip(textfmt.OneLine(r.Title), 200), URL: u.String(), Snippet: textfmt.Clip(textfmt.OneLine(r.Content), 300)})
	}
	return out, nil
}
