package search

import (
	"context"

	"copperhead/internal/research/egress"
)

const (
	// openRouterBaseURL is OpenRouter's chat completions endpoint; web search
	// is a plugin on a completion request, not a separate API.
	openRouterBaseURL = "https://openrouter.ai/api/v1/chat/completions"
	// defaultOpenRouterModel is a small, cheap model: the completion's prose
	// is discarded, so the model only has to trigger the search plugin.
	defaultOpenRouterModel = "openai/gpt-4o-mini"
	// openRouterMaxTokens bounds the prose we pay for and then throw away.
	openRouterMaxTokens = 200
)

// OpenRouter searches through OpenRouter's web plugin, which lets a run that
// already has an OpenRouter key search without a second vendor and secret.
// The plugin attaches the pages it used as url_citation annotations; those
// annotations are the results. The model's own answer is discarded unread:
// it is generated text about untrusted pages, and returning it would turn
// web_search into a summarizer (D4).
type OpenRouter struct {
	keyed
	model string
}

// NewOpenRouter returns an OpenRouter web-plugin provider using key.
func NewOpenRouter(key string, client *egress.Client) *OpenRouter {
	return &OpenRouter{keyed: keyed{key: key, client: client, baseURL: openRouterBaseURL}, model: defaultOpenRouterModel}
}

// Name reports "openrouter".
func (o *OpenRouter) Name() string { return "openrouter" }

type openRouterMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type openRouterPlugin struct {
	ID         string `json:"id"`
	MaxResults int    `json:"max_results"`
}

type openRouterRequest struct {
	Model     string              `json:"model"`
	Messages  []openRouterMessage `json:"messages"`
	Plugins   []openRouterPlugin  `json:"plugins"`
	MaxTokens int                 `json:"max_tokens"`
}

type openRouterResponse struct {
	Choices []struct {
		Message struct {
			Annotations []struct {
				Type        string `json:"type"`
				URLCitation struct {
					URL     string `json:"url"`
					Title   string `json:"title"`
					Content string `json:"content"`
				} `json:"url_citation"`
			} `json:"annotations"`
		} `json:"message"`
	} `json:"choices"`
}

// Search runs one web query through the plugin and returns up to n cited
// pages, deduplicated by URL in citation order.
func (o *OpenRouter) Search(ctx context.Context, query string, n int) ([]Result, error) {
	n = clampResults(n)
	var body openRouterResponse
	err := o.postJSON(ctx, "openrouter", OpenRouterKeyEnv, openRouterRequest{
		Model: o.model,
		Messages: []openRouterMessage{{
			Role:    "user",
			Content: "Search the web for the following query and cite the sources you find.\n\nQuery: " + query,
		}},
		Plugins:   []openRouterPlugin{{ID: "web", MaxResults: n}},
		MaxTokens: openRouterMaxTokens,
	}, &body)
	if err != nil {
		return nil, err
	}
	var out []Result
	seen := map[string]bool{}
	for _, c := range body.Choices {
		for _, a := range c.Message.Annotations {
			if a.Type != "url_citation" || len(out) == n {
				continue
			}
			res, ok := cleanResult(a.URLCitation.Title, a.URLCitation.URL, a.URLCitation.Content)
			if !ok || seen[res.URL] {
				continue
			}
			seen[res.URL] = true
			out = append(out, res)
		}
	}
	if out == nil {
		out = []Result{}
	}
	return out, nil
}
