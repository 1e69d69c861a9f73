// Package htmltext is the module's one HTML-to-text converter: a small
// tolerant reader of our own that turns a page into plain text (markup,
// scripts, styles and comments removed, entities decoded, whitespace
// collapsed outside <pre>, blocks on their own lines, paragraphs separated
// by a blank line) and finds its <title> and the publication date a <meta>
// tag states. Carter's doctext runs it on a whole document, whose text is
// then the unit of truth for citations (evidence offsets index it, so it is
// deterministic: same bytes in, same text out); research/page runs it on the
// article Readability picked out of a fetched page.
//
// htmltext imports only the standard library; it must never import a
// fetcher, a parser of the DOM or any other copperhead package.
package htmltext

import (
	"html"
	"strings"
	"time"
	"unicode"
)

// Result is what Convert yields: readable text, the <title>, and a
// published date when a <meta> tag states one.
type Result struct {
	Text      string
	Title     string
	Published string // YYYY-MM-DD, "" when unknown
}

// skipElements hold no readable text: their whole content is dropped.
var skipElements = map[string]bool{
	"script": true, "style": true, "noscript": true, "template": true, "svg": true,
	"math": true, "head": false, "iframe": true, "object": true, "canvas": true, "select": true,
}

// blockElements end a line; paraElements also leave a blank line, which the
// sentence splitter treats as a hard boundary.
var blockElements = map[string]bool{
	"br": true, "li": true, "tr": true, "dt": true, "dd": true, "div": true, "hr": true,
	"ul": true, "ol": true, "dl": true, "table": true, "thead": true, "tbody": true, "caption": true,
	"nav": true, "header": true, "footer": true, "aside": true, "figure": true, "figcaption": true,
	"form": true, "fieldset": true, "address": true, "main": true, "details": true, "summary": true,
}

var paraElements = map[string]bool{
	"p": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"pre": true, "blockquote": true, "section": true, "article": true, "body": true,
}

// dateMetaNames are <meta name|property> values that carry a publication
// date, in the vocabularies pages actually use (Open Graph, Dublin Core,
// Google Scholar, plain).
var dateMetaNames = map[string]bool{
	"article:published_time": true, "date": true, "dc.date": true, "dc.date.issued": true,
	"dcterms.date": true, "dcterms.issued": true, "citation_publication_date": true,
	"citation_date": true, "pubdate": true, "publish_date": true, "og:published_time": true,
}

// maxHTMLBytes bounds what Convert parses: pages larger than this are cut, as a
// reader would stop scrolling; it keeps a hostile page from costing minutes.
const maxHTMLBytes = 16 << 20

// Convert turns an HTML page into plain text: markup, scripts, styles and
// comments removed, entities decoded, whitespace collapsed outside <pre>,
// block elements on their own lines and paragraphs separated by a blank
// line. It never fails: anything it cannot read as a tag is text. The
// result is valid UTF-8 without control characters other than '\n' and '\t'.
func Convert(src string) Result {
	if len(src) > maxHTMLBytes {
		src = src[:maxHTMLBytes]
	}
	src = strings.ToValidUTF8(src, "\uFFFD")
	var (
		out     textBuilder
		res     Result
		skip    string // element whose content is being skipped
		inTitle bool
		title   strings.Builder
		pre     int
	)
	i := 0
	for i < len(src) {
		lt := strings.IndexByte(src[i:], '<')
		if lt < 0 {
			lt = len(src) - i
		}
		if lt > 0 {
			chunk := src[i : i+lt]
			switch {
			case inTitle:
				title.WriteString(chunk)
			case skip == "":
				out.text(html.UnescapeString(chunk), pre > 0)
			}
			i += lt
			continue
		}
		// src[i] == '<'
		if strings.HasPrefix(src[i:], "<!--") {
			end := strings.Index(src[i+4:], "-->")
			if end < 0 {
				break
			}
			i += 4 + end + 3
			continue
		}
		name, attrs, closing, end, ok := readTag(src, i)
		if !ok {
			// A '<' that starts no tag is text ("a < b").
			if skip == "" && !inTitle {
				out.text("<", pre > 0)
			} else if inTitle {
				title.WriteByte('<')
			}
			i++
			continue
		}
		i = end
		if skip != "" {
			if closing && name == skip {
				skip = ""
			}
			continue
		}
		switch {
		case name == "title":
			inTitle = !closing
			continue
		case name == "meta" && !closing:
			if d := metaDate(attrs); d != "" && res.Published == "" {
				res.Published = d
			}
			continue
		case skipElements[name] && !closing && !strings.HasSuffix(attrs, "/"):
			skip = name
			continue
		case name == "pre":
			if closing {
				pre = max(0, pre-1)
			} else {
				pre++
			}
		}
		switch {
		case paraElements[name]:
			out.paragraph()
		case blockElements[name]:
			out.line()
		case name == "td" || name == "th":
			out.space()
		case name == "img" && !closing:
			if alt := attr(attrs, "alt"); alt != "" {
				out.text(" "+alt+" ", false)
			}
		}
	}
	res.Text = out.String()
	res.Title = strings.Join(strings.Fields(html.UnescapeString(title.String())), " ")
	res.Title = cleanControl(res.Title)
	return res
}

// readTag reads the tag starting at src[i] == '<'. It returns the lower-case
// element name, the raw attribute text, whether it is a closing tag, and the
// offset just past '>'. Declarations (<!DOCTYPE>, <?xml?>) come back with an
// empty name.
func readTag(src string, i int) (name, attrs string, closing bool, end int, ok bool) {
	j := i + 1
	if j < len(src) && (src[j] == '!' || src[j] == '?') {
		k := strings.IndexByte(src[j:], '>')
		if k < 0 {
			return "", "", false, 0, false
		}
		return "", "", false, j + k + 1, true
	}
	if j < len(src) && src[j] == '/' {
		closing = true
		j++
	}
	k := j
	for k < len(src) && (isASCIIAlnum(src[k]) || src[k] == '-' || src[k] == ':') {
		k++
	}
	if k == j || !isASCIIAlpha(src[j]) {
		return "", "", false, 0, false
	}
	name = strings.ToLower(src[j:k])
	// Find the closing '>' outside quoted attribute values.
	quote := byte(0)
	for m := k; m < len(src); m++ {
		c := src[m]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			return name, strings.TrimSpace(src[k:m]), closing, m + 1, true
		}
	}
	return "", "", false, 0, false
}

func isASCIIAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isASCIIAlnum(c byte) bool { return isASCIIAlpha(c) || c >= '0' && c <= '9' }

// attr returns the (entity-decoded) value of attribute key in raw attribute
// text, or "".
func attr(attrs, key string) string {
	s := attrs
	for s != "" {
		s = strings.TrimLeft(s, " \t\r\n/")
		k := 0
		for k < len(s) && s[k] != '=' && s[k] != ' ' && s[k] != '\t' && s[k] != '\n' && s[k] != '\r' && s[k] != '/' {
			k++
		}
		name := strings.ToLower(s[:k])
		s = strings.TrimLeft(s[k:], " \t\r\n")
		val := ""
		if strings.HasPrefix(s, "=") {
			s = strings.TrimLeft(s[1:], " \t\r\n")
			if s != "" && (s[0] == '"' || s[0] == '\'') {
				q := s[0]
				e := strings.IndexByte(s[1:], q)
				if e < 0 {
					val, s = s[1:], ""
				} else {
					val, s = s[1:1+e], s[2+e:]
				}
			} else {
				e := strings.IndexAny(s, " \t\r\n")
				if e < 0 {
					e = len(s)
				}
				val, s = s[:e], s[e:]
			}
		}
		if name == key {
			return html.UnescapeString(val)
		}
		if k == 0 && val == "" {
			if s == "" {
				break
			}
			s = s[1:]
		}
	}
	return ""
}

// metaDate returns the YYYY-MM-DD a date <meta> tag states, or "".
func metaDate(attrs string) string {
	key := strings.ToLower(attr(attrs, "name"))
	if key == "" {
		key = strings.ToLower(attr(attrs, "property"))
	}
	if key == "" {
		key = strings.ToLower(attr(attrs, "itemprop"))
	}
	if !dateMetaNames[key] && key != "datepublished" {
		return ""
	}
	return ParseDate(attr(attrs, "content"))
}

// textBuilder accumulates text with collapsed whitespace, no trailing
// spaces on any line, and at most one blank line between blocks. Spaces are
// owed, not written, until the next visible character arrives, so a line
// break simply forgets them.
type textBuilder struct {
	b        strings.Builder
	spaces   int // spaces owed before the next character
	newlines int // trailing newlines already written
}

func (t *textBuilder) text(s string, pre bool) {
	for _, r := range s {
		switch {
		case r == '\n' && pre:
			t.newline(1)
		case r == '\t' && pre:
			t.spaces += 4
		case unicode.IsSpace(r) || r == '\u00a0':
			if pre {
				if r != '\r' {
					t.spaces++
				}
				continue
			}
			if t.b.Len() > 0 && t.newlines == 0 {
				t.spaces = 1
			}
		case unicode.IsControl(r) || r == '\ufeff':
			continue
		default:
			if t.spaces > 0 && t.b.Len() > 0 {
				if t.newlines > 0 && !pre {
					t.spaces = 0
				}
				for ; t.spaces > 0; t.spaces-- {
					t.b.WriteByte(' ')
				}
			}
			t.spaces = 0
			t.b.WriteRune(r)
			t.newlines = 0
		}
	}
}

func (t *textBuilder) space() {
	if t.b.Len() > 0 && t.newlines == 0 {
		t.spaces = 1
	}
}

func (t *textBuilder) line()      { t.newline(1) }
func (t *textBuilder) paragraph() { t.newline(2) }

// newline ends the current line so that at least want newlines trail the
// text (never more than two: one blank line).
func (t *textBuilder) newline(want int) {
	t.spaces = 0
	if t.b.Len() == 0 {
		return
	}
	for t.newlines < want {
		t.b.WriteByte('\n')
		t.newlines++
	}
}

func (t *textBuilder) String() string {
	s := strings.TrimSpace(t.b.String())
	if s == "" {
		return ""
	}
	return s + "\n"
}

func cleanControl(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && r != '\n' && r != '\t' {
			return -1
		}
		return r
	}, s)
}

// ParseDate reads the date part of an ISO 8601 date or timestamp
// ("2024-03-01", "2024-03-01T10:00:00Z") and returns it as YYYY-MM-DD, or ""
// when s does not start with a valid date.
func ParseDate(s string) string {
	s = strings.TrimSpace(s)
	if len(s) < 10 {
		return ""
	}
	t, err := time.Parse("2006-01-02", s[:10])
	if err != nil {
		return ""
	}
	return t.Format("2006-01-02")
}
