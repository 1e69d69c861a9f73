package tools

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"copperhead/internal/research"
	websearch "copperhead/internal/research/search"
	"copperhead/internal/textfmt"
	"copperhead/internal/tool"
)

const (
	// maxQueryRunes is Brave's own limit on a query (400 characters), the
	// strictest of the providers.
	maxQueryRunes = 400
	// defaultSearchResults and maxSearchResults bound one search: a handful
	// of candidates is what the model can weigh; more is context spent.
	defaultSearchResults = 5
	maxSearchResults     = 10
)

type webSearchArgs struct {
	Query string `json:"query" desc:"what to search for, e.g. TPS63020 datasheet"`
	Count int    `json:"count,omitempty" desc:"how many results, 1 to 10 (default 5)"`
}

// webSearchTool runs one web search through the first search provider that
// answers (Brave, then Tavily, then OpenRouter, as their keys allow) and
// puts every result URL on the run's menu.
var webSearchTool = researchTool("web_search", webSearch)

func webSearch(ctx context.Context, s *tool.Session, kit *research.Kit, a webSearchArgs) (tool.Result, error) {
	query := textfmt.OneLine(a.Query)
	switch {
	case query == "":
		return tool.Errorf("web_search: query is empty"), nil
	case utf8.RuneCountInString(query) > maxQueryRunes:
		return tool.Errorf("web_search: query is %d characters; at most %d", utf8.RuneCountInString(query), maxQueryRunes), nil
	case a.Count < 0 || a.Count > maxSearchResults:
		return tool.Errorf("web_search: count %d: must be 1 to %d", a.Count, maxSearchResults), nil
	}
	n := a.Count
	if n == 0 {
		n = defaultSearchResults
	}
	return firstAnswer(ctx, s, "web_search", "search provider", kit.Search, func(p websearch.Provider) ([]websearch.Result, error) {
		return p.Search(ctx, query, n)
	}, func(p websearch.Provider, results []websearch.Result, failed string) (tool.Result, error) {
		source := "web_search:" + p.Name()
		var b strings.Builder
		for i, r := range results {
			u, ok := kit.Menu.Add(r.URL, source)
			if !ok {
				u = r.URL + " (not fetchable)"
			}
			fmt.Fprintf(&b, "%d. %s\n   %s\n", i+1, r.Title, u)
			if r.Snippet != "" {
				fmt.Fprintf(&b, "   %s\n", r.Snippet)
			}
		}
		head := fmt.Sprintf("web_search %q via %s: %s", query, p.Name(), textfmt.CountForms(len(results), "result", "results"))
		if len(results) == 0 {
			return tool.Result{Text: head + "."}, nil
		}
		head += failed + "; their URLs are on this run's URL menu."
		return tool.Result{Text: head + "\n" + untrusted("web_search ("+p.Name()+")", b.String())}, nil
	})
}
