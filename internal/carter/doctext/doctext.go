// Package doctext turns a retrieved document's bytes into the plain text
// that evidence offsets index: HTML through internal/htmltext (the module's
// one HTML-to-text converter, which research/page shares), PDF through
// `pdftotext -layout` (Debian poppler-utils, run here and nowhere else in
// carter), Markdown and plain text as they are. It also
// finds a title and, when the document states one, a publication date.
//
// The text is the unit of truth for citations: every quote is
// text[start:end] of exactly what this package returned, so its output is
// deterministic (same bytes in, same text out) and always valid UTF-8 with
// '\n' line ends.
//
// doctext imports only the standard library and internal/htmltext. It must
// never import a retriever or the orchestrator; they call it.
package doctext

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
	"unicode"

	"copperhead/internal/htmltext"
)

// Kind is a document format doctext understands.
type Kind string

const (
	KindHTML     Kind = "html"
	KindPDF      Kind = "pdf"
	KindMarkdown Kind = "markdown"
	KindText     Kind = "text"
)

// Document is an extracted document.
type Document struct {
	Kind      Kind
	Text      string
	Title     string
	Published string // YYYY-MM-DD, "" when unknown
	Extractor string // what produced Text, recorded next to it
}

// ErrUnsupported is wrapped when a document is in no format doctext reads.
var ErrUnsupported = errors.New("unsupported document type")

// KindOf picks the format from a content type (preferred) or a file name.
func KindOf(contentType, name string) (Kind, error) {
	ct := strings.ToLower(strings.TrimSpace(strings.SplitN(contentType, ";", 2)[0]))
	switch {
	case ct == "text/html" || ct == "application/xhtml+xml":
		return KindHTML, nil
	case ct == "application/pdf":
		return KindPDF, nil
	case ct == "text/markdown" || ct == "text/x-markdown":
		return KindMarkdown, nil
	case ct == "text/plain" && !strings.HasSuffix(strings.ToLower(name), ".md"):
		return KindText, nil
	}
	switch strings.ToLower(path.Ext(name)) {
	case ".html", ".htm", ".xhtml":
		return KindHTML, nil
	case ".pdf":
		return KindPDF, nil
	case ".md", ".markdown":
		return KindMarkdown, nil
	case ".txt", ".text", "":
		if ct == "" || strings.HasPrefix(ct, "text/") {
			return KindText, nil
		}
	}
	return "", fmt.Errorf("%w: %q (%s)", ErrUnsupported, name, ct)
}

// Extract turns data into a Document. name is used for the title when the
// document has none and to pick the format when contentType is empty.
func Extract(ctx context.Context, data []byte, contentType, name string) (Document, error) {
	kind, err := KindOf(contentType, name)
	if err != nil {
		return Document{}, err
	}
	if kind != KindPDF {
		if why := Binary(data); why != "" {
			return Document{}, fmt.Errorf("%w, not %s: %s", ErrBinary, kind, why)
		}
	}
	var d Document
	switch kind {
	case KindHTML:
		h := htmltext.Convert(string(data))
		d = Document{Kind: kind, Text: h.Text, Title: h.Title, Published: h.Published, Extractor: "carter html-to-text"}
	case KindPDF:
		text, version, err := PDF(ctx, data)
		if err != nil {
			return Document{}, err
		}
		d = Document{Kind: kind, Text: text, Extractor: "pdftotext -layout " + version}
		d.Title = firstLine(text)
	case KindMarkdown:
		text := plain(string(data))
		d = Document{Kind: kind, Text: text, Extractor: "markdown source"}
		d.Title, d.Published = markdownMeta(text)
	default:
		text := plain(string(data))
		d = Document{Kind: kind, Text: text, Extractor: "plain text", Title: firstLine(text)}
	}
	if d.Title == "" {
		d.Title = path.Base(name)
	}
	if len(d.Title) > maxTitleBytes {
		d.Title = strings.ToValidUTF8(d.Title[:maxTitleBytes], "") + "…"
	}
	return d, nil
}

// maxTitleBytes keeps a title to one reference line.
const maxTitleBytes = 160

// plain normalizes text files: valid UTF-8, '\n' line ends, no NUL or other
// control characters besides tab and newline, no byte-order mark.
func plain(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = strings.TrimPrefix(s, "\ufeff")
	return strings.Map(func(r rune) rune {
		if (unicode.IsControl(r) && r != '\n' && r != '\t') || r == '\ufeff' {
			if r == '\f' {
				return '\n'
			}
			return -1
		}
		return r
	}, s)
}

func firstLine(text string) string {
	for _, line := range strings.Split(text, "\n") {
		if l := strings.Join(strings.Fields(line), " "); l != "" {
			return strings.TrimLeft(l, "# ")
		}
	}
	return ""
}

var (
	frontMatterDate  = regexp.MustCompile(`(?m)^(?:date|published|published_date|pubdate):\s*["']?([0-9]{4}-[0-9]{2}-[0-9]{2})`)
	frontMatterTitle = regexp.MustCompile(`(?m)^title:\s*["']?([^"'\n]+)`)
	mdHeading        = regexp.MustCompile(`(?m)^#\s+(.+)$`)
)

// markdownMeta reads a title and date from YAML front matter, falling back
// to the first level-one heading.
func markdownMeta(text string) (title, date string) {
	if strings.HasPrefix(text, "---\n") {
		if end := strings.Index(text[4:], "\n---"); end >= 0 {
			fm := text[4 : 4+end]
			if m := frontMatterDate.FindStringSubmatch(fm); m != nil {
				date = htmltext.ParseDate(m[1])
			}
			if m := frontMatterTitle.FindStringSubmatch(fm); m != nil {
				title = strings.TrimSpace(m[1])
			}
		}
	}
	if title == "" {
		if m := mdHeading.FindStringSubmatch(text); m != nil {
			title = strings.TrimSpace(m[1])
		}
	}
	return title, date
}
