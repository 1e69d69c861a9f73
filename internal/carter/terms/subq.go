package terms

import (
	"regexp"
	"strings"
)

// SubQuestion is one part of a question that the brief owes an answer: its
// text as the user wrote it and its content stems.
type SubQuestion struct {
	Text  string   `json:"text"`
	Stems []string `json:"stems"`
}

var (
	// clauseSplit cuts before a conjunction that opens a new question:
	// "..., and how can ...", "... and what ...", "...; why ...".
	clauseSplit = regexp.MustCompile(`(?i)(?:,\s*|\s+)(?:and|but|or|also|plus)\s+(?:also\s+)?(how|what|which|why|when|where|who|whom|whose|is|are|does|do|did|can|could|should|would|will|must|may)\b|;\s*|\?\s+`)
	// between catches a comparison: "the difference between A and B".
	between = regexp.MustCompile(`(?i)\bbetween\s+(.+?)\s+(?:and|vs\.?|versus)\s+(.+?)(\s*(?:[,;?]|$|\s+(?:in|for|when|with|on)\s))`)
	// enumeration catches a list of three or more short items:
	// "the -n, -r and -u options", "A, B, and C" (one-word items).
	enumeration = regexp.MustCompile(`(?:[\w\-'.]+,\s+)+[\w\-'.]+,?\s+(?:and|or)\s+[\w\-'.]+`)
	listSep     = regexp.MustCompile(`,?\s+(?:and|or)\s+|,\s+`)
)

// SubQuestions splits a question into the parts a complete answer must
// address: independent clauses joined by a conjunction that opens a new
// question ("What does X guarantee, and how can Y change Z?"), several
// sentences, the two sides of a comparison ("difference between A and B"),
// and enumerations ("the -n, -r and -u options of sort"). A part without
// content words is dropped; a question that does not split is its own one
// sub-question. Sub-questions are distinct and in question order.
func SubQuestions(question string) []SubQuestion {
	var parts []string
	rest := question
	for {
		loc := clauseSplit.FindStringSubmatchIndex(rest)
		if loc == nil {
			parts = append(parts, rest)
			break
		}
		parts = append(parts, rest[:loc[0]])
		if loc[2] >= 0 {
			rest = rest[loc[2]:] // keep the question word that opens the next part
		} else {
			rest = rest[loc[1]:]
		}
	}
	var out []SubQuestion
	seen := map[string]bool{}
	addPart := func(text string) {
		text = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(text), "?.,;"))
		stems := Content(text)
		key := strings.Join(stems, " ")
		if len(stems) == 0 || seen[key] {
			return
		}
		seen[key] = true
		out = append(out, SubQuestion{Text: text, Stems: stems})
	}
	for _, p := range parts {
		for _, q := range expand(p) {
			addPart(q)
		}
	}
	if len(out) == 0 {
		if stems := Content(question); len(stems) > 0 {
			out = append(out, SubQuestion{Text: strings.TrimSpace(question), Stems: stems})
		}
	}
	return out
}

// expand turns a comparison or an enumeration in one clause into one
// sub-question per item, the rest of the clause shared.
func expand(p string) []string {
	if m := between.FindStringSubmatchIndex(p); m != nil {
		a, b := p[m[2]:m[3]], p[m[4]:m[5]]
		pre, post := p[:m[0]], p[m[5]:]
		return []string{pre + a + post, pre + b + post}
	}
	if m := enumeration.FindStringIndex(p); m != nil {
		items := listSep.Split(p[m[0]:m[1]], -1)
		if len(items) >= 3 {
			var out []string
			for _, it := range items {
				if it = strings.TrimSpace(it); it != "" {
					out = append(out, p[:m[0]]+it+p[m[1]:])
				}
			}
			return out
		}
	}
	return []string{p}
}

// Addresses reports whether a text with the given stems addresses sub: it
// names at least half of the sub-question's content words (at least two of
// them when the sub-question has two or more), so a sentence about
// "bash -c" does not answer "what does set -e do".
func Addresses(sub SubQuestion, stems map[string]bool) bool {
	n := len(sub.Stems)
	if n == 0 {
		return false
	}
	got := 0
	for _, s := range sub.Stems {
		if stems[s] {
			got++
		}
	}
	return got >= min(2, n) && 2*got >= n
}
