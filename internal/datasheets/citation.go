package datasheets

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"copperhead/internal/textfmt"
)

// PageCitation is a citation as a design doc writes it (D6, D8): a cached
// PDF, a section string, and the page of the extracted text it is on:
//
//	.copperhead/datasheets/TPS63020DSJR-1a2b3c4d.pdf §8.3 Feature Description (p.14)
//
// The section string is whatever identifies the cited passage on that page
// (a section number, a heading, a table title); it must not contain
// parentheses or "§". Whitespace inside it need not match the extracted
// text's.
type PageCitation struct {
	File    string `json:"file"`    // the PDF's name in the cache
	Section string `json:"section"` // the text that must occur on Page
	Page    int    `json:"page"`    // 1-based
	Written string `json:"written"` // the citation as the doc wrote it
}

func (c PageCitation) String() string { return c.Written }

// pageCitationRE is the one definition of the citation syntax. The file name
// alphabet is FileName's, so any cache name can be cited and nothing else.
var pageCitationRE = regexp.MustCompile(regexp.QuoteMeta(DirName+"/") +
	`([A-Za-z0-9][A-Za-z0-9._+-]*\.pdf)[ \t]+§[ \t]*([^()§]*[^()§\s])[ \t]*\([ \t]*p\.[ \t]*([0-9]+)[ \t]*\)`)

// maxMalformedQuote bounds how much of a malformed citation an error quotes.
const maxMalformedQuote = 100

// ParsePageCitations finds every citation in s, in order. Every other
// mention of the cache folder is a citation someone got wrong; it is
// returned, as written, in malformed, so a checker can say so rather than
// skip it.
func ParsePageCitations(s string) (citations []PageCitation, malformed []string) {
	prefix := DirName + "/"
	for off := 0; ; {
		i := strings.Index(s[off:], prefix)
		if i < 0 {
			return citations, malformed
		}
		i += off
		if m := pageCitationRE.FindStringSubmatchIndex(s[i:]); m != nil && m[0] == 0 {
			page, err := strconv.Atoi(s[i+m[6] : i+m[7]])
			if err == nil {
				citations = append(citations, PageCitation{
					File: s[i+m[2] : i+m[3]], Section: s[i+m[4] : i+m[5]], Page: page, Written: s[i : i+m[1]],
				})
				off = i + m[1]
				continue
			}
		}
		end := len(s)
		if j := strings.Index(s[i+len(prefix):], prefix); j >= 0 {
			end = i + len(prefix) + j
		}
		if j := strings.IndexAny(s[i:end], ";|\n"); j >= 0 {
			end = i + j
		}
		malformed = append(malformed, textfmt.CutBytes(strings.TrimSpace(s[i:end]), maxMalformedQuote))
		off = i + len(prefix)
	}
}

// Cause says why a citation failed its check; the values are part of
// `check --json`.
type Cause string

// Causes, in the order Checker.Check tests them.
const (
	CauseMalformed      Cause = "malformed"         // not "<dir>/<file>.pdf §<section> (p.N)"
	CauseMissingFile    Cause = "missing_file"      // the PDF is not in the cache folder
	CauseNotInIndex     Cause = "not_in_index"      // index.json has no cached entry for it (or cannot be read)
	CauseHashMismatch   Cause = "hash_mismatch"     // its SHA-256 is not the one index.json recorded
	CauseNoText         Cause = "no_text"           // its extracted text is missing or has no page markers
	CausePageOutOfRange Cause = "page_out_of_range" // the text has fewer pages than cited
	CauseTextNotOnPage  Cause = "text_not_on_page"  // the section text does not occur on that page
)

// CitationError is a citation that failed its check: which one, the cause,
// and the evidence in words.
type CitationError struct {
	Citation string // as written
	Cause    Cause
	Detail   string
}

func (e *CitationError) Error() string {
	return fmt.Sprintf("citation %q: %s: %s", e.Citation, e.Cause, e.Detail)
}

// Checker verifies citations against one repository's cache. It reads
// index.json once and hashes and splits each cited file once, however often
// it is cited. It never writes.
type Checker struct {
	dir    string
	index  *Index
	idxErr error
	hashes map[string]result[string] // PDF name -> its sha256 in hex
	texts  map[string]result[*Text]  // PDF name -> its extracted text
}

// result is a memoized file read: the value, or why there is none.
type result[T any] struct {
	v   T
	err error
}

// NewChecker returns a checker for the cache of the repository at repoRoot.
func NewChecker(repoRoot string) *Checker {
	dir := filepath.Join(repoRoot, filepath.FromSlash(DirName))
	c := &Checker{dir: dir, hashes: map[string]result[string]{}, texts: map[string]result[*Text]{}}
	c.index, c.idxErr = ReadIndex(dir)
	return c
}

// Check verifies one citation (D8): the cited PDF exists, its SHA-256 is the
// one index.json recorded for it, and the section text occurs on the cited
// page of its extracted text. It returns nil for a good citation, else a
// *CitationError. It does not judge the engineering claim the citation
// supports: only that the evidence is attached and checkable.
func (c *Checker) Check(pc PageCitation) error {
	fail := func(cause Cause, format string, args ...any) error {
		return &CitationError{Citation: pc.Written, Cause: cause, Detail: fmt.Sprintf(format, args...)}
	}
	rel := DirName + "/" + pc.File
	sum, err := c.hash(pc.File)
	if errors.Is(err, os.ErrNotExist) {
		return fail(CauseMissingFile, "%s does not exist", rel)
	}
	if err != nil {
		return fail(CauseMissingFile, "%s cannot be read: %v", rel, err)
	}
	if c.idxErr != nil {
		return fail(CauseNotInIndex, "%v", c.idxErr)
	}
	e, ok := c.index.Cached(pc.File)
	if !ok {
		return fail(CauseNotInIndex, "%s/%s has no cached entry for %s", DirName, IndexName, pc.File)
	}
	if !strings.EqualFold(e.SHA256, sum) {
		return fail(CauseHashMismatch, "%s has sha256 %s but %s/%s records %s", rel, sum, DirName, IndexName, orNone(e.SHA256))
	}
	t, err := c.text(pc.File)
	if err != nil {
		return fail(CauseNoText, "%v", err)
	}
	if _, err := t.CiteOnPage(pc.Page, pc.Section); err != nil {
		if errors.Is(err, ErrNoSuchPage) {
			return fail(CausePageOutOfRange, "page %d cited, but the extracted text of %s has %d pages", pc.Page, pc.File, len(t.Pages))
		}
		return fail(CauseTextNotOnPage, "%q does not occur on page %d of %s.txt", textfmt.CutBytes(pc.Section, 120), pc.Page, pc.File)
	}
	return nil
}

func (c *Checker) hash(name string) (string, error) {
	r, ok := c.hashes[name]
	if !ok {
		r.v, r.err = fileSHA256(filepath.Join(c.dir, name))
		c.hashes[name] = r
	}
	return r.v, r.err
}

func (c *Checker) text(name string) (*Text, error) {
	r, ok := c.texts[name]
	if !ok {
		r.v, r.err = ReadText(c.dir, name)
		c.texts[name] = r
	}
	return r.v, r.err
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
