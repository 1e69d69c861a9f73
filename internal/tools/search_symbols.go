package tools

import (
	"context"
	"fmt"
	"strings"

	"copperhead/internal/draft"
	"copperhead/internal/textfmt"
	"copperhead/internal/tool"
)

type searchSymbolsArgs struct {
	Query string `json:"query" desc:"words that must all appear, e.g. \"LDO 3.3V\" or \"ATmega32U4\""`
	Limit int    `json:"limit,omitempty" desc:"most hits to return (default 20, at most 50)"`
}

var searchSymbolsTool = newTool("search_symbols", searchSymbols)

func searchSymbols(ctx context.Context, s *tool.Session, a searchSymbolsArgs) (tool.Result, error) {
	limit := a.Limit
	if limit <= 0 {
		limit = 20
	}
	hits, err := draft.SearchSymbols(draft.InstalledLibrary(), a.Query, min(limit, 50))
	if err != nil {
		return tool.Errorf("search_symbols: %v", err), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s for %q:\n", textfmt.CountForms(len(hits), "symbol", "symbols"), a.Query)
	for _, h := range hits {
		writeJSONLine(&b, h)
	}
	if len(hits) == 0 {
		b.WriteString("no installed symbol matches every word: try fewer or more general words (a package, a function, a part family)\n")
	}
	return tool.Result{Text: b.String()}, nil
}
