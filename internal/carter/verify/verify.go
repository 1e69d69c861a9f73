// Package verify is carter's verifier (spec §3 "Verify", issue #7): it
// decides which drafted claims the brief may state. A claim stays a finding
// only when it cites at least one evidence id, every id it cites resolves to
// a snippet whose quote is exactly its source's stored text at its offsets,
// that source was actually retrieved (retrieved_at and content hash present,
// stored text intact), and every quantity the claim states (a number with or
// without a unit, each end of a range, a percentage, a size, a bit width, a
// duration) appears in one of its quotes. A claim citing nothing is moved to
// "Speculation / Hypotheses"; one with any citation that does not check out
// is removed; one stating a quantity its quotes do not is moved to
// speculation. Every decision is
// counted for the run report.
//
// verify may import artifact, terms and the standard library; it must never
// import synth or a retriever: it judges their output without trusting it.
package verify

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"copperhead/internal/carter/artifact"
	"copperhead/internal/carter/terms"
)

// Input is what verification reads.
type Input struct {
	Claims   []artifact.Claim
	Evidence []artifact.Evidence
	Sources  []artifact.Source
	// Text returns a source's stored text by its hash (the artifact store's
	// Text, which checks the hash).
	Text func(hash string) (string, error)
}

// Decision is what happened to one claim that did not stay a finding.
type Decision struct {
	ClaimID string `json:"claim_id"`
	Text    string `json:"text"`
	Action  string `json:"action"` // "removed" or "moved-to-speculation"
	Reason  string `json:"reason"`
}

// Actions.
const (
	ActionRemoved = "removed"
	ActionMoved   = "moved-to-speculation"
)

// Result is the verifier's verdict.
type Result struct {
	Grounded    []artifact.Claim // findings, definitions, contradictions: every citation checked
	Speculation []artifact.Claim // labelled hypotheses: no checked citation
	Decisions   []Decision
	// Evidence is the valid evidence, in input order; BadEvidence says why
	// each invalid snippet failed.
	Evidence     []artifact.Evidence
	BadEvidence  map[string]string
	QuotesExact  int // snippets whose quote equals text[start:end]
	QuotesTotal  int
	References   []artifact.Source // sources cited by grounded claims, in first-cited order
	Unretrieved  int               // references without a retrieval record (always 0 when the checks hold)
	Removed      int
	Moved        int
	DraftedTotal int
}

// Run verifies the claims.
func Run(in Input) Result {
	res := Result{BadEvidence: map[string]string{}, DraftedTotal: len(in.Claims)}
	sources := map[string]artifact.Source{}
	for _, s := range in.Sources {
		sources[s.ID] = s
	}
	texts := map[string]string{}
	textErr := map[string]string{}
	valid := map[string]artifact.Evidence{}
	for _, e := range in.Evidence {
		res.QuotesTotal++
		reason := checkEvidence(e, sources, in.Text, texts, textErr)
		if reason != "" {
			res.BadEvidence[e.ID] = reason
			continue
		}
		res.QuotesExact++
		valid[e.ID] = e
		res.Evidence = append(res.Evidence, e)
	}
	seenClaim := map[string]bool{}
	cited := map[string]bool{}
	for _, c := range in.Claims {
		if seenClaim[c.ID] {
			res.Decisions = append(res.Decisions, Decision{c.ID, c.Text, ActionRemoved, "duplicate claim id"})
			res.Removed++
			continue
		}
		seenClaim[c.ID] = true
		var good []string
		var bad []string
		for _, id := range c.EvidenceIDs {
			if _, ok := valid[id]; ok {
				good = append(good, id)
			} else {
				bad = append(bad, id)
			}
		}
		if c.HasTag(artifact.TagSpeculation) {
			c.EvidenceIDs = nonNil(good)
			res.Speculation = append(res.Speculation, c)
			continue
		}
		if len(bad) > 0 {
			// Any citation that does not check out removes the claim, even
			// when others hold: a drafter that invents one evidence id has
			// not read the ones it got right either.
			res.Decisions = append(res.Decisions, Decision{c.ID, c.Text, ActionRemoved, badReason(bad, res.BadEvidence)})
			res.Removed++
			continue
		}
		if len(good) == 0 {
			res.Decisions = append(res.Decisions, Decision{c.ID, c.Text, ActionMoved, "cites no evidence"})
			res.Moved++
			res.Speculation = append(res.Speculation, speculation(c, nil))
			continue
		}
		quotes := make([]string, 0, len(good))
		for _, id := range good {
			quotes = append(quotes, valid[id].Quote+"\n"+valid[id].Context)
		}
		if q, ok := missingQuantity(c.Text, quotes); ok {
			res.Decisions = append(res.Decisions, Decision{c.ID, c.Text, ActionMoved, fmt.Sprintf("states %q, which none of its quotes contains", q)})
			res.Moved++
			res.Speculation = append(res.Speculation, speculation(c, good))
			continue
		}
		c.EvidenceIDs = good
		res.Grounded = append(res.Grounded, c)
		for _, id := range good {
			sid := valid[id].SourceID
			if !cited[sid] {
				cited[sid] = true
				s := sources[sid]
				if s.RetrievedAt == "" || s.ContentHash == "" {
					res.Unretrieved++
				}
				res.References = append(res.References, s)
			}
		}
	}
	return res
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func speculation(c artifact.Claim, ev []string) artifact.Claim {
	c.EvidenceIDs = nonNil(ev)
	c.Tags = []string{artifact.TagSpeculation}
	return c
}

func badReason(bad []string, why map[string]string) string {
	parts := make([]string, 0, len(bad))
	for _, id := range bad {
		r := why[id]
		if r == "" {
			r = "unknown evidence id"
		}
		parts = append(parts, id+": "+r)
	}
	return strings.Join(parts, "; ")
}

// checkEvidence returns why a snippet is invalid, or "".
func checkEvidence(e artifact.Evidence, sources map[string]artifact.Source, text func(string) (string, error), cache, errs map[string]string) string {
	s, ok := sources[e.SourceID]
	if !ok {
		return "source " + e.SourceID + " does not resolve"
	}
	if s.URL == "" {
		return "source has no URL"
	}
	if s.RetrievedAt == "" || s.ContentHash == "" {
		return "source was not retrieved"
	}
	if !s.TextStored {
		return "source text was not stored"
	}
	t, ok := cache[s.TextHash]
	if !ok {
		if why, failed := errs[s.TextHash]; failed {
			return why
		}
		var err error
		if text == nil {
			err = fmt.Errorf("no text store")
		} else {
			t, err = text(s.TextHash)
		}
		if err != nil {
			errs[s.TextHash] = "stored text unreadable: " + err.Error()
			return errs[s.TextHash]
		}
		cache[s.TextHash] = t
	}
	if e.Start < 0 || e.End > len(t) || e.Start >= e.End {
		return fmt.Sprintf("offsets [%d:%d] outside the %d-byte text", e.Start, e.End, len(t))
	}
	if !boundary(t, e.Start) || !boundary(t, e.End) {
		return "offsets split a UTF-8 character"
	}
	if t[e.Start:e.End] != e.Quote {
		return "quote differs from the text at its offsets"
	}
	if e.Context != "" {
		if e.ContextStart < 0 || e.ContextEnd > len(t) || e.ContextStart >= e.ContextEnd ||
			!boundary(t, e.ContextStart) || !boundary(t, e.ContextEnd) || t[e.ContextStart:e.ContextEnd] != e.Context {
			return "context differs from the text at its offsets"
		}
	}
	return ""
}

func boundary(s string, i int) bool {
	return i == len(s) || utf8.RuneStart(s[i])
}

// missingQuantity returns the first quantity of claim that no quote
// states.
func missingQuantity(claim string, quotes []string) (string, bool) {
	for _, q := range terms.Quantities(claim) {
		found := false
		for _, quote := range quotes {
			if terms.HasQuantity(quote, q) {
				found = true
				break
			}
		}
		if !found {
			return q.Text, true
		}
	}
	return "", false
}
