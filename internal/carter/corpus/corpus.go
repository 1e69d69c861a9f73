// Package corpus is carter's default retriever: a local folder of .md, .txt,
// .html and .pdf files, split into passages and ranked with BM25. It needs no
// network and no model, so a run over a corpus is reproducible on any
// machine with the same files.
//
// corpus may import retrieve, doctext, terms, artifact (for hashing) and the
// standard library; it must never import the orchestrator or anything that
// opens a socket.
package corpus

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"copperhead/internal/carter/artifact"
	"copperhead/internal/carter/doctext"
	"copperhead/internal/carter/retrieve"
	"copperhead/internal/carter/terms"
)

// BM25 parameters: the textbook values, which suit manuals and notes.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

const (
	// maxFileBytes skips files larger than any document a brief would
	// quote from; a 30 MB PDF is a scanned book, not a source.
	maxFileBytes = 32 << 20
	// maxFiles bounds a corpus: pointing --corpus at a home folder should
	// fail fast, not index for an hour.
	maxFiles = 5000
	// passageBytes is the target passage size: a few paragraphs, so BM25
	// scores a topic rather than a whole manual.
	passageBytes = 1200
	// snippetRunes bounds a candidate's preview.
	snippetRunes = 240
)

// Doc is one corpus file.
type Doc struct {
	Path      string // absolute
	URL       string // file:// URL, the source's canonical address
	Title     string
	Text      string
	Published string
	Extractor string
	Hash      string // sha256 of the file's bytes
	Bytes     int
}

type passage struct {
	doc        int
	start, end int
	tf         map[string]int
	length     int
}

// Corpus is a loaded, indexed folder. It is read-only after Load and safe
// for concurrent use.
type Corpus struct {
	Dir      string
	Docs     []Doc
	Skipped  []string // files not indexed, with why
	passages []passage
	df       map[string]int
	avgLen   float64
	byURL    map[string]int
}

// ErrNoDocuments is wrapped when a folder holds nothing to index.
var ErrNoDocuments = errors.New("no .md, .txt, .html or .pdf files")

// ErrNoReadable is wrapped when a folder has documents but every one was
// skipped (too large, binary, unreadable); the error lists why.
var ErrNoReadable = errors.New("no readable documents")

// Load reads and indexes every supported file below dir (hidden files and
// folders are skipped). A missing folder, a file path, or a folder with no
// documents is an error; a single unreadable file is skipped and listed.
func Load(ctx context.Context, dir string) (*Corpus, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("corpus %s: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("corpus %s: %w", dir, errors.Unwrap(err))
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("corpus %s: not a folder", dir)
	}
	c := &Corpus{Dir: abs, df: map[string]int{}, byURL: map[string]int{}}
	var files []string
	err = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			c.Skipped = append(c.Skipped, p+": "+err.Error())
			return nil
		}
		name := d.Name()
		if p != abs && strings.HasPrefix(name, ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		switch strings.ToLower(filepath.Ext(name)) {
		case ".md", ".markdown", ".txt", ".html", ".htm", ".pdf":
			files = append(files, p)
		}
		if len(files) > maxFiles {
			return fmt.Errorf("more than %d documents", maxFiles)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("corpus %s: %w", dir, err)
	}
	sort.Strings(files)
	for _, p := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		doc, err := readDoc(ctx, p)
		if err != nil {
			c.Skipped = append(c.Skipped, p+": "+err.Error())
			continue
		}
		c.byURL[doc.URL] = len(c.Docs)
		c.Docs = append(c.Docs, doc)
	}
	if len(c.Docs) == 0 && len(files) > 0 {
		// Every candidate was skipped: say why, naming the files, rather
		// than claiming the folder has no documents.
		why := c.Skipped
		more := ""
		if len(why) > 3 {
			why, more = why[:3], fmt.Sprintf("; and %d more", len(c.Skipped)-3)
		}
		return nil, fmt.Errorf("corpus %s: %w: %s%s", dir, ErrNoReadable, strings.Join(why, "; "), more)
	}
	if len(c.Docs) == 0 {
		return nil, fmt.Errorf("corpus %s: %w", dir, ErrNoDocuments)
	}
	if err := c.index(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

func readDoc(ctx context.Context, p string) (Doc, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return Doc{}, err
	}
	if fi.Size() > maxFileBytes {
		return Doc{}, fmt.Errorf("skipped: %s is over the %d MiB per-file cap (%d bytes)", mib(fi.Size()), maxFileBytes>>20, fi.Size())
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return Doc{}, err
	}
	d, err := doctext.Extract(ctx, data, "", filepath.Base(p))
	if err != nil {
		return Doc{}, err
	}
	if strings.TrimSpace(d.Text) == "" {
		return Doc{}, errors.New("no text")
	}
	return Doc{Path: p, URL: FileURL(p), Title: d.Title, Text: d.Text, Published: d.Published,
		Extractor: d.Extractor, Hash: artifact.Hash(data), Bytes: len(data)}, nil
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// FileURL is the canonical address of a corpus file.
func FileURL(p string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
}

// index splits every document into passages and computes document
// frequencies per passage.
func (c *Corpus) index(ctx context.Context) error {
	total := 0
	for i, d := range c.Docs {
		if err := ctx.Err(); err != nil {
			return err
		}
		for pi, span := range Passages(d.Text) {
			// One huge document must not hold Ctrl-C up either.
			if pi%256 == 255 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			toks := terms.Tokenize(d.Text[span[0]:span[1]])
			tf := map[string]int{}
			n := 0
			for _, t := range toks {
				if terms.IsStop(t.Stem) {
					continue
				}
				tf[t.Stem]++
				n++
			}
			if n == 0 {
				continue
			}
			for s := range tf {
				c.df[s]++
			}
			c.passages = append(c.passages, passage{doc: i, start: span[0], end: span[1], tf: tf, length: n})
			total += n
		}
	}
	if len(c.passages) > 0 {
		c.avgLen = float64(total) / float64(len(c.passages))
	}
	return nil
}

// Passages splits text at blank lines and packs the paragraphs into spans of
// about passageBytes (a longer paragraph is its own passage).
func Passages(text string) [][2]int {
	var out [][2]int
	start, end := -1, -1
	off := 0
	for off < len(text) {
		next := strings.Index(text[off:], "\n\n")
		pEnd := len(text)
		if next >= 0 {
			pEnd = off + next
		}
		para := strings.TrimSpace(text[off:pEnd])
		if para != "" {
			if start < 0 {
				start = off
			}
			end = pEnd
			if end-start >= passageBytes {
				out = append(out, [2]int{start, end})
				start = -1
			}
		}
		if next < 0 {
			break
		}
		off = pEnd + 2
	}
	if start >= 0 && end > start {
		out = append(out, [2]int{start, end})
	}
	return out
}

// IDF is the BM25 inverse document frequency of a stem across passages. A
// stem the corpus never uses weighs 0: a question word no document
// contains ("behaviour" in a corpus that writes "behavior" and folds to
// nothing else) says nothing about which passage answers, so it must not
// count against every passage's relevance.
func (c *Corpus) IDF(stem string) float64 {
	df := float64(c.df[stem])
	if df == 0 {
		return 0
	}
	n := float64(len(c.passages))
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// Name reports "corpus".
func (c *Corpus) Name() string { return "corpus" }

// Search ranks documents by their best passage's BM25 score for query (a
// document's other strong passages add a little, so a manual that treats the
// topic in depth beats one that mentions it once).
func (c *Corpus) Search(ctx context.Context, query string, n int) ([]retrieve.Candidate, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	q := terms.Content(query)
	if len(q) == 0 {
		return nil, nil
	}
	type hit struct {
		best, extra float64
		passage     int
	}
	hits := map[int]*hit{}
	for pi, p := range c.passages {
		s := c.score(p, q)
		if s <= 0 {
			continue
		}
		h := hits[p.doc]
		if h == nil {
			h = &hit{passage: pi}
			hits[p.doc] = h
		}
		if s > h.best {
			h.extra += h.best
			h.best, h.passage = s, pi
		} else {
			h.extra += s
		}
	}
	docs := make([]int, 0, len(hits))
	for d := range hits {
		docs = append(docs, d)
	}
	score := func(d int) float64 { return hits[d].best + 0.1*math.Log1p(hits[d].extra) }
	sort.Slice(docs, func(i, j int) bool {
		si, sj := score(docs[i]), score(docs[j])
		if si != sj {
			return si > sj
		}
		return c.Docs[docs[i]].URL < c.Docs[docs[j]].URL
	})
	if n > 0 && len(docs) > n {
		docs = docs[:n]
	}
	out := make([]retrieve.Candidate, 0, len(docs))
	for i, d := range docs {
		p := c.passages[hits[d].passage]
		out = append(out, retrieve.Candidate{
			URL: c.Docs[d].URL, Title: c.Docs[d].Title, Rank: i + 1,
			Score:   math.Round(score(d)*1000) / 1000,
			Snippet: preview(c.Docs[d].Text[p.start:p.end]),
		})
	}
	return out, nil
}

func (c *Corpus) score(p passage, q []string) float64 {
	s := 0.0
	for _, t := range q {
		f := float64(p.tf[t])
		if f == 0 {
			continue
		}
		norm := 1 - bm25B + bm25B*float64(p.length)/c.avgLen
		s += c.IDF(t) * f * (bm25K1 + 1) / (f + bm25K1*norm)
	}
	return s
}

// Fetch returns a corpus document by its file URL.
func (c *Corpus) Fetch(ctx context.Context, cand retrieve.Candidate) (retrieve.Document, error) {
	if err := ctx.Err(); err != nil {
		return retrieve.Document{}, err
	}
	i, ok := c.byURL[cand.URL]
	if !ok {
		return retrieve.Document{}, fmt.Errorf("corpus: %s is not in the corpus", cand.URL)
	}
	d := c.Docs[i]
	return retrieve.Document{URL: d.URL, Title: d.Title, Text: d.Text, Published: d.Published,
		Extractor: d.Extractor, ContentHash: d.Hash, Bytes: d.Bytes}, nil
}

func preview(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > snippetRunes {
		return string(r[:snippetRunes-1]) + "…"
	}
	return s
}
