package page

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"codeberg.org/readeck/go-readability/v2"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"

	"copperhead/internal/htmltext"
	"copperhead/internal/research/egress"
)

const (
	// MaxBytes caps a page download (the 2 MiB for pages): far
	// above any product page's HTML, low enough that a hostile server
	// cannot fill memory.
	MaxBytes = 2 << 20
	// MaxTextBytes caps the readable text handed to the model. A product
	// page or application note reads in well under this; the cap keeps one
	// page from crowding the context window.
	MaxTextBytes = 24 << 10
	// MaxLinks caps the links harvested from one page. The run's URL menu
	// has its own cap; this one stops a single link-farm page from
	// consuming it.
	MaxLinks = 200
	// maxElements bounds the DOM Readability scores. Real pages have a few
	// thousand elements; a page of millions is an attack on our CPU.
	maxElements = 100_000
)

// accepted lists the content types fetch_page reads. PDFs go through
// fetch_datasheet, which caches them as evidence; anything else is not a
// page.
var accepted = []string{"text/html", "application/xhtml+xml", "text/plain"}

// Page is one fetched page reduced to what the model may see. Every string
// is untrusted text from the page's author.
type Page struct {
	URL       string   // final URL, after redirects
	Title     string   // the article title Readability found, one line
	Text      string   // readable text, at most MaxTextBytes
	Truncated bool     // Text was cut at MaxTextBytes
	Links     []string // absolute http(s) links, in page order, deduplicated, at most MaxLinks
}

// ErrNotPage is returned for a response whose content type is not HTML or
// plain text.
var ErrNotPage = errors.New("not a web page")

// Fetch downloads rawURL (already canonical: pass exactly what the menu
// stored) through client and extracts its readable text and links.
func Fetch(ctx context.Context, client *egress.Client, rawURL string) (*Page, error) {
	resp, err := client.Get(ctx, rawURL, MaxBytes, accepted...)
	if err != nil {
		return nil, fmt.Errorf("fetch page %s: %w", egress.RedactURL(rawURL), err)
	}
	if resp.Status < 200 || resp.Status > 299 {
		return nil, fmt.Errorf("fetch page %s: HTTP status %d", egress.RedactURL(rawURL), resp.Status)
	}
	p, err := Extract(resp.Body, resp.Header.Get("Content-Type"), resp.URL)
	if err != nil {
		return nil, fmt.Errorf("fetch page %s: %w", egress.RedactURL(rawURL), err)
	}
	return p, nil
}

// Extract reduces a page body to its readable text and links. contentType
// is the response's Content-Type header (its charset parameter is honoured;
// "" means sniff); pageURL is the page's final URL, against which relative
// links resolve. It does no I/O.
func Extract(body []byte, contentType, pageURL string) (*Page, error) {
	base, err := url.Parse(pageURL)
	if err != nil {
		return nil, fmt.Errorf("page URL: %w", err)
	}
	mediaType := strings.ToLower(strings.TrimSpace(strings.SplitN(contentType, ";", 2)[0]))
	r, err := charset.NewReader(bytes.NewReader(body), contentType)
	if err != nil {
		return nil, fmt.Errorf("decode page text: %w", err)
	}
	if mediaType == "text/plain" {
		text, err := io.ReadAll(r)
		if err != nil {
			return nil, fmt.Errorf("decode page text: %w", err)
		}
		p := &Page{URL: pageURL}
		p.Text, p.Truncated = cleanText(string(text))
		return p, nil
	}
	if mediaType != "" && mediaType != "text/html" && mediaType != "application/xhtml+xml" {
		return nil, fmt.Errorf("%w: content type %q", ErrNotPage, mediaType)
	}
	doc, err := html.Parse(r)
	if err != nil {
		return nil, fmt.Errorf("parse HTML: %w", err)
	}
	links, elements := harvestLinks(doc, base)
	if elements > maxElements {
		return nil, fmt.Errorf("page too complex: %d elements, limit %d", elements, maxElements)
	}
	p := &Page{URL: pageURL, Links: links}

	// Readability rewrites the tree it scores, so it runs after the links
	// were taken from the whole page: a datasheet link in a sidebar or a
	// download button is exactly what the menu should gain.
	parser := readability.NewParser()
	article, err := parser.ParseAndMutate(doc, base)
	var text string
	if err == nil && article.Node != nil {
		text, err = innerText(article.Node)
		p.Title = oneLine(article.Title())
	} else {
		// Not an article (a bare listing, a short page): its whole text is
		// still better than nothing, and it is bounded below.
		text, err = innerText(doc)
	}
	if err != nil {
		return nil, err
	}
	p.Text, p.Truncated = cleanText(text)
	return p, nil
}

// innerText is the text of the tree under n, by the module's one
// HTML-to-text converter (the one carter's evidence offsets index).
func innerText(n *html.Node) (string, error) {
	var b strings.Builder
	if err := html.Render(&b, n); err != nil {
		return "", fmt.Errorf("render page text: %w", err)
	}
	return htmltext.Convert(b.String()).Text, nil
}

// harvestLinks returns the absolute http(s) targets of the page's <a href>
// elements, resolved against base, fragments dropped, in page order without
// duplicates, at most MaxLinks, and the number of elements in the document.
// Anything else (mailto:, javascript:, relative junk that does not resolve)
// is not fetchable and is skipped.
func harvestLinks(doc *html.Node, base *url.URL) (links []string, elements int) {
	seen := map[string]bool{}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			elements++
		}
		if n.Type == html.ElementNode && n.Data == "a" && len(links) < MaxLinks {
			for _, at := range n.Attr {
				if at.Key != "href" {
					continue
				}
				if u, ok := resolve(base, at.Val); ok && !seen[u] {
					seen[u] = true
					links = append(links, u)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return links, elements
}

func resolve(base *url.URL, href string) (string, bool) {
	href = strings.TrimSpace(href)
	if href == "" || strings.HasPrefix(href, "#") {
		return "", false
	}
	ref, err := url.Parse(href)
	if err != nil {
		return "", false
	}
	u := base.ResolveReference(ref)
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return "", false
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String(), true
}

// cleanText makes extracted text fit for a tool result: valid UTF-8, no
// control characters but newlines and tabs, trailing spaces trimmed, at
// most one blank line in a row, and at most MaxTextBytes (cut on a line or
// rune boundary).
func cleanText(s string) (string, bool) {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case r == '\r':
			return -1
		case unicode.IsControl(r):
			return ' '
		}
		return r
	}, s)
	var b strings.Builder
	blank := 0
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimRightFunc(line, unicode.IsSpace)
		if line == "" {
			if blank++; blank > 1 || b.Len() == 0 {
				continue
			}
		} else {
			blank = 0
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	out := strings.TrimSpace(b.String())
	if len(out) <= MaxTextBytes {
		return out, false
	}
	cut := out[:MaxTextBytes]
	if i := strings.LastIndexByte(cut, '\n'); i > MaxTextBytes/2 {
		cut = cut[:i]
	}
	for !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	return cut, true
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
