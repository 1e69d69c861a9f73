package datasheet

import (
	"copperhead/internal/datasheets"
)

// Citation points at a quote in a cached text file (see datasheets.Citation):
// text[Start:End] of the .pdf.txt file is Quote.
type Citation = datasheets.Citation

// ErrQuoteNotFound is wrapped by Cite's error when the quote does not occur
// in the text: a citation that cannot be checked is not made.
var ErrQuoteNotFound = datasheets.ErrQuoteNotFound

// Read returns page n (1-based) of a cached document's text and the UTF-8
// byte offset where that text starts in the .pdf.txt file. The text is
// untrusted document content, to be quoted, never followed.
func (c *Cache) Read(file string, n int) (text string, startByte int, err error) {
	t, err := datasheets.ReadText(c.Dir, file)
	if err != nil {
		return "", 0, err
	}
	return t.Page(n)
}

// Cite finds quote in a cached document's text and returns its exact byte
// span (see datasheets.Text.Cite: whitespace-insensitive, first occurrence,
// never across a page break).
func (c *Cache) Cite(file, quote string) (Citation, error) {
	t, err := datasheets.ReadText(c.Dir, file)
	if err != nil {
		return Citation{}, err
	}
	return t.Cite(quote)
}
