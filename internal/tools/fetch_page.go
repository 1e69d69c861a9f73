package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"copperhead/internal/research"
	"copperhead/internal/research/egress"
	"copperhead/internal/research/page"
	"copperhead/internal/textfmt"
	"copperhead/internal/tool"
)

type fetchPageArgs struct {
	URL string `json:"url" desc:"a URL exactly as web_search, search_parts or an earlier fetch_page returned it"`
}

// fetchPageTool fetches one menu URL and returns its readable text. The
// menu is the exfiltration control: the URL is canonicalized once by the
// menu lookup and exactly that canonical string is fetched, so the model can
// choose among URLs trusted code saw but never address one of its own. The
// page's links are harvested by our parser, not the model, onto the menu.
var fetchPageTool = researchTool("fetch_page", fetchPage)

func fetchPage(ctx context.Context, s *tool.Session, kit *research.Kit, a fetchPageArgs) (tool.Result, error) {
	entry, ok := kit.Menu.Lookup(a.URL)
	if !ok {
		return menuRefusal("fetch_page", a.URL), nil
	}
	p, err := page.Fetch(ctx, kit.Client, entry.URL)
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{}, ctx.Err()
		}
		var refused *egress.RefusedError
		if errors.As(err, &refused) {
			return tool.Errorf("fetch_page: refused: %s", s.Scrub(refused.Error())), nil
		}
		return tool.Errorf("fetch_page: %s", s.Scrub(err.Error())), nil
	}
	added := 0
	var links strings.Builder
	for _, l := range p.Links {
		if u, ok := kit.Menu.Add(l, "link:"+entry.URL); ok {
			added++
			links.WriteString("- " + u + "\n")
		}
	}
	var body strings.Builder
	if p.Title != "" {
		fmt.Fprintf(&body, "Title: %s\n\n", p.Title)
	}
	body.WriteString(p.Text)
	if p.Truncated {
		fmt.Fprintf(&body, "\n[text cut at %d bytes]", page.MaxTextBytes)
	}
	if added > 0 {
		body.WriteString("\n\nLinks:\n" + links.String())
	}
	head := fmt.Sprintf("fetch_page %s: %d bytes of text, %s added to the URL menu.", entry.URL, len(p.Text), textfmt.CountForms(added, "link", "links"))
	if p.URL != entry.URL {
		head = fmt.Sprintf("fetch_page %s (redirected to %s): %d bytes of text, %s added to the URL menu.", entry.URL, egress.RedactURL(p.URL), len(p.Text), textfmt.CountForms(added, "link", "links"))
	}
	return tool.Result{Text: head + "\n" + untrusted("the page "+entry.URL, body.String())}, nil
}
