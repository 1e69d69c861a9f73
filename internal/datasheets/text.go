package datasheets

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"copperhead/internal/textfmt"
)

// PageMarker is the line that opens page n in a text file.
func PageMarker(n int) string { return "=== page " + strconv.Itoa(n) + " ===\n" }

// markerRE matches a marker line (without its newline).
var markerRE = regexp.MustCompile(`^=== page ([0-9]+) ===$`)

// IsPageMarker reports whether line (without its newline) reads as a page
// marker.
func IsPageMarker(line string) bool { return markerRE.MatchString(line) }

// CleanPage makes extracted text safe to store between markers: valid UTF-8,
// no NULs or form feeds, a final newline, and no line that reads as a marker
// (such a line gets one leading space, which whitespace-normalized quoting
// ignores).
func CleanPage(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.NewReplacer("\x00", "", "\f", "\n", "\r\n", "\n", "\r", "\n").Replace(s)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if markerRE.MatchString(l) {
			lines[i] = " " + l
		}
	}
	s = strings.Join(lines, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}

// Page is one page's span in a text file.
type Page struct {
	N          int // 1-based
	Start, End int // byte offsets of the page text (after its marker line)
}

// SplitPages finds the marker lines (at the start of a line, numbered 1, 2,
// 3, ... in order) and returns each page's text span.
func SplitPages(text string) []Page {
	var pages []Page
	for off := 0; off < len(text); {
		line, rest, _ := strings.Cut(text[off:], "\n")
		next := len(text) - len(rest)
		if m := markerRE.FindStringSubmatch(line); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil && n == len(pages)+1 {
				if len(pages) > 0 {
					pages[len(pages)-1].End = off
				}
				pages = append(pages, Page{N: n, Start: next})
			}
		}
		off = next
	}
	if len(pages) > 0 {
		pages[len(pages)-1].End = len(text)
	}
	return pages
}

// Text is one cached document's extracted text, split into pages.
type Text struct {
	File  string // the PDF's name in the cache, e.g. "ESP32-S3-a1b2c3d4.pdf"
	Text  string // the whole .pdf.txt file
	Pages []Page
}

// Resolve turns a caller's file reference (a cache name like "X.pdf" or
// "X.pdf.txt", optionally prefixed with .copperhead/datasheets/) into the PDF
// name and the text file's path under dir. Anything that would leave the
// cache folder is refused.
func Resolve(dir, file string) (pdfName, textPath string, err error) {
	name := strings.TrimPrefix(filepath.ToSlash(file), DirName+"/")
	name = strings.TrimSuffix(name, ".txt")
	if name == "" || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".pdf") {
		return "", "", fmt.Errorf("datasheet %q: not a PDF name in %s", file, DirName)
	}
	return name, filepath.Join(dir, name+".txt"), nil
}

// ReadText reads the text file of a cached document in the cache folder dir
// and splits it at its page markers. A text file without markers is an
// error: its citations could not be checked.
func ReadText(dir, file string) (*Text, error) {
	pdfName, textPath, err := Resolve(dir, file)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(textPath)
	if err != nil {
		return nil, fmt.Errorf("read datasheet text: %w", err)
	}
	t := &Text{File: pdfName, Text: string(data), Pages: SplitPages(string(data))}
	if len(t.Pages) == 0 {
		return nil, fmt.Errorf("read datasheet text %s: no page markers", textPath)
	}
	return t, nil
}

// Page returns page n (1-based) and the UTF-8 byte offset where its text
// starts in the .pdf.txt file.
func (t *Text) Page(n int) (text string, startByte int, err error) {
	if n < 1 || n > len(t.Pages) {
		return "", 0, fmt.Errorf("read %s page %d: %w: the document has %d pages", t.File, n, ErrNoSuchPage, len(t.Pages))
	}
	p := t.Pages[n-1]
	return t.Text[p.Start:p.End], p.Start, nil
}

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

// Errors a caller can branch on with errors.Is.
var (
	// ErrQuoteNotFound: the quote does not occur in the text (or not on the
	// page asked for). A citation that cannot be checked is not made.
	ErrQuoteNotFound = errors.New("quote not found")
	// ErrNoSuchPage: the page number is outside the document.
	ErrNoSuchPage = errors.New("no such page")
)

// Cite finds quote in the text and returns its exact byte span. Matching
// ignores differences in whitespace (pdftotext -layout pads columns with
// spaces and breaks lines where the page did) but nothing else: case,
// punctuation and digits must match. A quote never spans a page break. When
// the quote occurs more than once, the first occurrence is cited.
func (t *Text) Cite(quote string) (Citation, error) {
	for _, p := range t.Pages {
		if c, ok, err := t.find(p, quote); err != nil || ok {
			return c, err
		}
	}
	return Citation{}, fmt.Errorf("cite %s: %w: %q", t.File, ErrQuoteNotFound, textfmt.CutBytes(quote, 120))
}

// CiteOnPage is Cite restricted to page n: the check a doc's
// "§<section> (p.N)" citation must pass.
func (t *Text) CiteOnPage(n int, quote string) (Citation, error) {
	if _, _, err := t.Page(n); err != nil {
		return Citation{}, err
	}
	c, ok, err := t.find(t.Pages[n-1], quote)
	if err == nil && !ok {
		err = fmt.Errorf("cite %s page %d: %w: %q", t.File, n, ErrQuoteNotFound, textfmt.CutBytes(quote, 120))
	}
	return c, err
}

func (t *Text) find(p Page, quote string) (Citation, bool, error) {
	want := strings.Fields(quote)
	if len(want) == 0 {
		return Citation{}, false, fmt.Errorf("cite %s: empty quote", t.File)
	}
	needle := strings.Join(want, " ")
	norm, offs := normalize(t.Text[p.Start:p.End])
	i := strings.Index(norm, needle)
	if i < 0 {
		return Citation{}, false, nil
	}
	start := p.Start + offs[i]
	end := p.Start + offs[i+len(needle)-1] + 1
	return Citation{File: t.File, Page: p.N, Start: start, End: end, Quote: t.Text[start:end]}, true, nil
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
