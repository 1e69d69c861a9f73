package search

import (
	"context"

	"copperhead/internal/research/egress"
)

// tavilyBaseURL is the Tavily search endpoint.
const tavilyBaseURL = "https://api.tavily.com/search"

// Tavily searches through the Tavily API. The key travels as a bearer token
// rather than the legacy api_key body field, so it never sits in a request
// body a proxy or log might capture.
type Tavily struct{ keyed }

// NewTavily returns a Tavily provider using key for every request.
func NewTavily(key string, client *egress.Client) *Tavily {
	return &Tavily{keyed{key: key, client: client, baseURL: tavilyBaseURL}}
}

// Name reports "tavily".
func (t *Tavily) Name() string { return "tavily" }

// tavilyRequest asks for ranked hits only: no synthesized answer, no raw
// page content, no images. Those would be page bodies or model prose, which
// web_search must not return (D4).
type tavilyRequest struct {
	Query             string `json:"query"`
	MaxResults        int    `json:"max_results"`
	SearchDepth       string `json:"search_depth"`
	IncludeAnswer     bool   `json:"include_answer"`
	IncludeRawContent bool   `json:"include_raw_content"`
	IncludeImages     bool   `json:"include_images"`
}

type tavilyResponse struct {
	Results []struct {
		Title   string `json:"title"`
		URL     string `json:"url"`
		Content string `json:"content"`
	} `json:"results"`
}

// Search runs one web query and returns up to n cleaned results.
func (t *Tavily) Search(ctx context.Context, query string, n int) ([]Result, error) {
	n = clampResults(n)
	var body tavilyResponse
	if err := t.postJSON(ctx, "tavily", TavilyKeyEnv,
		tavilyRequest{Query: query, MaxResults: n, SearchDepth: "basic"}, &body); err != nil {
		return nil, err
	}
	out := make([]Result, 0, len(body.Results))
	for _, r := range body.Results {
		if len(out) == n {
			break
		}
		if res, ok := cleanResult(r.Title, r.URL, r.Content); ok {
			out = append(out, res)
		}
	}
	return out, nil
}
