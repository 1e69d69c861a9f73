// Package artifact owns what a carter run keeps (spec §2, §6): the source
// records, the evidence snippets, the claims drafted from them, and the
// store under <run>/artifacts/ that holds the extracted text evidence offsets
// index plus the run record replay rebuilds the outputs from.
//
// Only what the outputs need is stored: a source's metadata and hashes
// always, its extracted (secret-redacted) text only when evidence cites it,
// and the model's replies. Full pages that contributed nothing are never
// written (spec §6: "avoid saving full page where possible").
//
// artifact may import internal/atomicfile, internal/carter/task and the
// standard library; it must never import the packages that produce or judge
// artifacts (retrievers, synth, verify), so the on-disk format is defined in
// one place.
package artifact

import (
	"crypto/sha256"
	"encoding/hex"
)

// Source is one retrieved document (spec §2 "Source record", with the
// fields verification needs added).
type Source struct {
	ID            string  `json:"source_id"`
	Title         string  `json:"title"`
	URL           string  `json:"url"` // canonical: what was fetched, or file:// path
	PublishedDate *string `json:"published_date"`
	RetrievedAt   string  `json:"retrieved_at"`
	ContentHash   string  `json:"content_hash"` // sha256 of the bytes as retrieved
	Notes         *string `json:"notes"`

	// TextHash is the sha256 of the extracted text that evidence offsets
	// index (after secret redaction); TextStored says whether that text is
	// in the store (only sources that evidence cites keep it).
	TextHash   string   `json:"text_hash"`
	TextBytes  int      `json:"text_bytes"`
	TextStored bool     `json:"text_stored"`
	Extractor  string   `json:"extractor"`
	Domain     string   `json:"domain"` // registrable domain, "local" for corpus files
	Flags      []string `json:"flags"`  // FlagPromptInjection, FlagSecretsRedacted
	Retriever  string   `json:"retriever"`
}

// Source flags.
const (
	// FlagPromptInjection marks a source containing text addressed to an AI
	// agent ("ignore previous instructions"): that text is never evidence
	// and never an instruction; the brief says so next to the reference.
	FlagPromptInjection = "prompt-injection"
	// FlagSecretsRedacted marks a source whose text held something shaped
	// like a credential, replaced before the text was stored or quoted.
	FlagSecretsRedacted = "secrets-redacted"
)

// Evidence is one snippet (spec §2). Start and End are UTF-8 byte offsets
// into the source's stored text, and Quote is exactly text[Start:End].
type Evidence struct {
	ID        string  `json:"evidence_id"`
	SourceID  string  `json:"source_id"`
	Quote     string  `json:"quote"`
	Start     int     `json:"char_start"`
	End       int     `json:"char_end"`
	Relevance float64 `json:"relevance"`
	// Context is the line a structured quote sits under, when it is not
	// part of the quote: the option list's command ("set [-abefhkmn...]"
	// over "-e  Exit immediately ..."), a table's header row. It is
	// text[ContextStart:ContextEnd] of the same stored text, checked like
	// the quote; empty when the quote stands alone.
	Context      string `json:"context,omitempty"`
	ContextStart int    `json:"context_start,omitempty"`
	ContextEnd   int    `json:"context_end,omitempty"`
}

// Claim tags (spec §2 plus "speculation").
const (
	TagFinding       = "finding"
	TagContradiction = "contradiction"
	TagGap           = "gap"
	TagDefinition    = "definition"
	TagSpeculation   = "speculation"
)

// Claim is one statement of the brief and the evidence behind it.
type Claim struct {
	ID          string   `json:"claim_id"`
	Text        string   `json:"text"`
	EvidenceIDs []string `json:"evidence_ids"`
	Confidence  float64  `json:"confidence"`
	Tags        []string `json:"tags"`
}

// HasTag reports whether the claim carries tag.
func (c Claim) HasTag(tag string) bool {
	for _, t := range c.Tags {
		if t == tag {
			return true
		}
	}
	return false
}

// Gap is a part of the question no grounded claim answers.
type Gap struct {
	Aspect string `json:"aspect"`
	Text   string `json:"text"`
}

// Hash is the one content hash: lower-case hex SHA-256.
func Hash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
