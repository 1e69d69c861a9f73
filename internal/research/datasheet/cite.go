package datasheet

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Citation points at a quote in a cached text file. Start and End are UTF-8
// byte offsets into the .pdf.txt file, so anyone can check a citation by
// slicing the file: text[Start:End] is Quote.
type Citation struct {
	File  string // the PDF's name in the cache, e.g. "ESP32-S3-a1b2c3d4.pdf"
	Page  int    // 1-based
	Start int
	End   int
	Quote string // exactly text[Start:End]
}

// ErrQuoteNotFound is wrapped by Cite's error when the quote does not occur
// in the text: a citation that cannot be checked is not made.
var ErrQuoteNotFound = errors.New("quote not found")

// page is one page's span in a text file.
type page struct {
	n          int
	start, end int // byte offsets of the page text (after its marker line)
}

// resolve turns a caller's file reference (a cache name like "X.pdf" or
// "X.pdf.txt", optionally prefixed with .copperhead/datasheets/) into the PDF
// name and the text file's path. Anything that would leave the cache folder
// is refused.
func (c *Cache) resolve(file string) (pdfName, textPath string, err error) {
	name := strings.TrimPrefix(filepath.ToSlash(file), DirName+"/")
	name = strings.TrimSuffix(name, ".txt")
	if name == "" || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".pdf") {
		return "", "", fmt.Errorf("datasheet %q: not a PDF name in %s", file, DirName)
	}
	return name, filepath.Join(c.Dir, name+".txt"), nil
}

// loadText reads a cached text file and splits it at its page markers.
func (c *Cache) loadText(file string) (pdfName, text string, pages []page, err error) {
	pdfName, textPath, err := c.resolve(file)
	if err != nil {
		return "", "", nil, err
	}
	data, err := os.ReadFile(textPath)
	if err != nil {
		return "", "", nil, fmt.Errorf("read datasheet text: %w", err)
	}
	text = string(data)
	pages = splitPages(text)
	if len(pages) == 0 {
		return "", "", nil, fmt.Errorf("read datasheet text %s: no page markers", textPath)
	}
	return pdfName, text, pages, nil
}

// splitPages finds the marker lines (at the start of a line, numbered 1, 2,
// 3, ... in order) and returns each page's text span.
func splitPages(text string) []page {
	var pages []page
	for off := 0; off < len(text); {
		line, rest, _ := strings.Cut(text[off:], "\n")
		next := len(text) - len(rest)
		if m := markerRE.FindStringSubmatch(line); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil && n == len(pages)+1 {
				if len(pages) > 0 {
					pages[len(pages)-1].end = off
				}
				pages = append(pages, page{n: n, start: next})
			}
		}
		off = next
	}
	if len(pages) > 0 {
		pages[len(pages)-1].end = len(text)
	}
	return pages
}

// Read returns page n (1-based) of a cached document's text and the UTF-8
// byte offset where that text starts in the .pdf.txt file. The text is
// untrusted document content, to be quoted, never followed.
func (c *Cache) Read(file string, n int) (text string, startByte int, err error) {
	pdfName, all, pages, err := c.loadText(file)
	if err != nil {
		return "", 0, err
	}
	if n < 1 || n > len(pages) {
		return "", 0, fmt.Errorf("read %s page %d: the document has %d pages", pdfName, n, len(pages))
	}
	p := pages[n-1]
	return all[p.start:p.end], p.start, nil
}

// Cite finds quote in a cached document's text and returns its exact byte
// span. Matching ignores differences in whitespace (pdftotext -layout pads
// columns with spaces and breaks lines where the page did) but nothing else:
// case, punctuation and digits must match. A quote never spans a page break.
// When the quote occurs more than once, the first occurrence is cited.
func (c *Cache) Cite(file, quote string) (Citation, error) {
	want := strings.Fields(quote)
	if len(want) == 0 {
		return Citation{}, fmt.Errorf("cite %s: empty quote", file)
	}
	pdfName, all, pages, err := c.loadText(file)
	if err != nil {
		return Citation{}, err
	}
	needle := strings.Join(want, " ")
	for _, p := range pages {
		norm, offs := normalize(all[p.start:p.end])
		i := strings.Index(norm, needle)
		if i < 0 {
			continue
		}
		start := p.start + offs[i]
		end := p.start + offs[i+len(needle)-1] + 1
		return Citation{File: pdfName, Page: p.n, Start: start, End: end, Quote: all[start:end]}, nil
	}
	return Citation{}, fmt.Errorf("cite %s: %w: %q", pdfName, ErrQuoteNotFound, clip(quote, 120))
}

// normalize collapses every run of whitespace in s to one space and trims
// the ends; offs[i] is the byte offset in s of the normalized string's byte
// i (for a multi-byte rune, byte k maps to the source rune's byte k, clamped
// to its length when the source byte was invalid UTF-8), so a match's first
// and last bytes map back to exact source bytes.
func normalize(s string) (string, []int) {
	var b strings.Builder
	offs := make([]int, 0, len(s))
	pendingSpace := false
	for i, r := range s {
		if unicode.IsSpace(r) {
			pendingSpace = b.Len() > 0
			continue
		}
		if pendingSpace {
			b.WriteByte(' ')
			offs = append(offs, i) // never the last byte of a match: quotes are trimmed
			pendingSpace = false
		}
		w := utf8.RuneLen(r)
		if r == utf8.RuneError {
			w = 1
			if i+3 <= len(s) && s[i:i+3] == "\uFFFD" {
				w = 3
			}
		}
		b.WriteRune(r)
		for k := 0; k < utf8.RuneLen(r); k++ {
			offs = append(offs, i+min(k, w-1))
		}
	}
	return b.String(), offs
}
