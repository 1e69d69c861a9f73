package search

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"copperhead/internal/research/egress"
)

// Result is one web search hit: metadata the agent may cite or hand to
// fetch_datasheet, never the page itself. Every field is untrusted text.
type Result struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet,omitempty"`
}

// Provider is one search API. Search returns at most n results, already
// cleaned (see Result); an empty slice with a nil error is a real answer.
type Provider interface {
	Name() string
	Search(ctx context.Context, query string, n int) ([]Result, error)
}

// Environment variables holding provider keys. A provider is available only
// when its variable is non-empty.
const (
	BraveKeyEnv      = "BRAVE_API_KEY"
	TavilyKeyEnv     = "TAVILY_API_KEY"
	OpenRouterKeyEnv = "OPENROUTER_API_KEY"
)

// Available returns the search providers whose keys are set, in preference
// order: Brave, Tavily, OpenRouter. A provider without its key is absent, not
// present-and-failing, so a run without keys behaves exactly as one without
// research (D2).
func Available(getenv func(string) string, client *egress.Client) []Provider {
	var ps []Provider
	if k := strings.TrimSpace(getenv(BraveKeyEnv)); k != "" {
		ps = append(ps, NewBrave(k, client))
	}
	if k := strings.TrimSpace(getenv(TavilyKeyEnv)); k != "" {
		ps = append(ps, NewTavily(k, client))
	}
	if k := strings.TrimSpace(getenv(OpenRouterKeyEnv)); k != "" {
		ps = append(ps, NewOpenRouter(k, client))
	}
	return ps
}

// Errors a caller can branch on with errors.Is (egress's, shared with the
// part-data providers). The wrapped message names the provider and the
// environment variable to check, never the key.
var (
	ErrUnauthorized = egress.ErrUnauthorized
	ErrRateLimited  = egress.ErrRateLimited
)

const (
	// maxResponseBytes caps a search API response. Real responses for 20
	// results are tens of kilobytes; the cap only stops a misbehaving server.
	maxResponseBytes = 2 << 20
	// maxResults bounds n: the agent needs a handful of candidates, and
	// Brave's own per-request ceiling is 20.
	maxResults = 20
	// defaultResults is used when the caller asks for n <= 0.
	defaultResults = 5
	// maxSnippetRunes keeps a snippet to a couple of sentences: enough to
	// judge relevance, too little to smuggle a page body into the context.
	maxSnippetRunes = 300
	// maxTitleRunes bounds titles the same way.
	maxTitleRunes = 200
)

func clampResults(n int) int {
	if n <= 0 {
		return defaultResults
	}
	return min(n, maxResults)
}

// keyed is what every search provider holds: its key, the guarded client
// and its endpoint, which tests point at a loopback server.
type keyed struct {
	key     string
	client  *egress.Client
	baseURL string
}

// postJSON is a search API call: payload as a JSON POST to the endpoint with
// the key as a bearer token, through egress, a 2xx status required, the reply
// decoded into out. Errors name the provider and never carry the key.
func (k keyed) postJSON(ctx context.Context, provider, keyEnv string, payload, out any) error {
	body, err := json.Marshal(payload)
	if err != nil {
		return fmt.Errorf("%s search: %w", provider, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, k.baseURL, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%s search: %w", provider, scrub(err, k.key))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer "+k.key)
	resp, err := k.client.Do(ctx, req, maxResponseBytes)
	if err != nil {
		return fmt.Errorf("%s search: %w", provider, scrub(err, k.key))
	}
	if resp.Status < 200 || resp.Status > 299 {
		return statusError(provider, keyEnv, resp.Status)
	}
	if err := json.Unmarshal(resp.Body, out); err != nil {
		return fmt.Errorf("%s search: decode response: %w", provider, err)
	}
	return nil
}

// statusError maps a non-2xx response to an error naming the provider and,
// for authentication failures, the variable holding the key. The response
// body is deliberately not quoted: it is untrusted and may echo the request.
func statusError(provider, keyEnv string, status int) error {
	if status == 402 {
		return fmt.Errorf("%s search: HTTP 402: the account behind %s is out of credit", provider, keyEnv)
	}
	return egress.StatusError(provider+" search", status, keyEnv)
}

// scrub is egress.Scrub for the search providers' one key.
func scrub(err error, key string) error { return egress.Scrub(err, key) }

// cleanResult applies the metadata-only rules to one raw hit. It returns
// false for hits without a usable absolute http(s) URL: those can be neither
// cited nor fetched.
func cleanResult(title, rawURL, snippet string) (Result, bool) {
	u, ok := cleanURL(rawURL)
	if !ok {
		return Result{}, false
	}
	return Result{
		Title:   truncateRunes(plainText(title), maxTitleRunes),
		URL:     u,
		Snippet: truncateRunes(plainText(snippet), maxSnippetRunes),
	}, true
}

func cleanURL(raw string) (string, bool) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return "", false
	}
	return raw, true
}

// plainText turns a provider's snippet into one line of plain text: tags are
// removed (Brave marks matches with <strong>), entities decoded, and the
// decoded text stripped again so an escaped tag cannot survive as markup.
// Control characters and runs of whitespace collapse to single spaces.
func plainText(s string) string {
	s = stripTags(html.UnescapeString(stripTags(s)))
	var b strings.Builder
	space := false
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsSpace(r) || unicode.IsControl(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// stripTags drops everything between '<' and the next '>'. A '<' that is
// never closed drops the rest of the string: a truncated tag is markup too.
func stripTags(s string) string {
	if !strings.ContainsRune(s, '<') {
		return s
	}
	var b strings.Builder
	inTag := false
	for _, r := range s {
		switch {
		case inTag:
			inTag = r != '>'
		case r == '<':
			inTag = true
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
