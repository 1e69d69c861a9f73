package search

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"copperhead/internal/research/egress"
)

// braveBaseURL is the Brave Search API web endpoint.
const braveBaseURL = "https://api.search.brave.com/res/v1/web/search"

// Brave searches through the Brave Search API. The key travels in the
// X-Subscription-Token header, never in the URL, so the egress log and any
// transport error stay key-free.
type Brave struct{ keyed }

// NewBrave returns a Brave provider using key for every request.
func NewBrave(key string, client *egress.Client) *Brave {
	return &Brave{keyed{key: key, client: client, baseURL: braveBaseURL}}
}

// Name reports "brave".
func (b *Brave) Name() string { return "brave" }

// braveResponse is the subset of Brave's web search response we read.
type braveResponse struct {
	Web struct {
		Results []struct {
			Title       string `json:"title"`
			URL         string `json:"url"`
			Description string `json:"description"`
		} `json:"results"`
	} `json:"web"`
}

// Search runs one web query and returns up to n cleaned results.
func (b *Brave) Search(ctx context.Context, query string, n int) ([]Result, error) {
	n = clampResults(n)
	q := url.Values{}
	q.Set("q", query)
	q.Set("count", strconv.Itoa(n))
	// Text decorations are Brave's <strong> highlighting; ask for none so
	// snippets arrive closer to plain text (plainText still strips).
	q.Set("text_decorations", "false")
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.baseURL+"?"+q.Encode(), nil)
	if err != nil {
		return nil, fmt.Errorf("brave search: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Subscription-Token", b.key)
	resp, err := b.client.Do(ctx, req, maxResponseBytes)
	if err != nil {
		return nil, fmt.Errorf("brave search: %w", scrub(err, b.key))
	}
	if resp.Status < 200 || resp.Status > 299 {
		return nil, statusError("brave", BraveKeyEnv, resp.Status)
	}
	var body braveResponse
	if err := json.Unmarshal(resp.Body, &body); err != nil {
		return nil, fmt.Errorf("brave search: decode response: %w", err)
	}
	out := make([]Result, 0, len(body.Web.Results))
	for _, r := range body.Web.Results {
		if len(out) == n {
			break
		}
		if res, ok := cleanResult(r.Title, r.URL, r.Description); ok {
			out = append(out, res)
		}
	}
	return out, nil
}
