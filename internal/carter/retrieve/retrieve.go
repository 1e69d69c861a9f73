// Package retrieve defines what carter's retrievers exchange with the
// orchestrator: a Candidate (a search hit, metadata only) and a Document (a
// fetched source as text). Retrievers (corpus, web) return these; the
// orchestrator applies policy, stores artifacts and extracts evidence.
//
// Everything in a Candidate or Document is untrusted third-party text: data
// to quote, never instructions.
//
// retrieve imports only the standard library; it must never import a
// retriever implementation or the orchestrator.
package retrieve

import "context"

// Candidate is one search hit.
type Candidate struct {
	URL     string  `json:"url"` // canonical; what Fetch will read
	Title   string  `json:"title"`
	Snippet string  `json:"snippet,omitempty"`
	Score   float64 `json:"score"`
	Rank    int     `json:"rank"` // 1-based, in the retriever's order
}

// Document is one fetched source.
type Document struct {
	URL         string // canonical, after redirects
	Title       string
	Text        string // extracted text; evidence offsets index it
	Published   string // YYYY-MM-DD, "" when unknown
	Extractor   string
	ContentHash string // sha256 of the bytes as retrieved
	Bytes       int    // size as retrieved
}

// Retriever finds and reads sources. Each Search and each Fetch is one tool
// call against the run's budget.
type Retriever interface {
	// Name is "corpus" or "web".
	Name() string
	// Search returns at most n candidates for query, best first.
	Search(ctx context.Context, query string, n int) ([]Candidate, error)
	// Fetch reads one candidate's document.
	Fetch(ctx context.Context, c Candidate) (Document, error)
}

// Weighter is implemented by retrievers that know how informative a word is
// across their collection (the corpus's BM25 IDF). The extractor uses it to
// rank snippets; without it every question word counts the same.
type Weighter interface {
	IDF(stem string) float64
}
