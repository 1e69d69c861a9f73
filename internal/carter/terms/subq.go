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
	// differ catches "How does A differ from B", "How is A different from
	// B", "Compare A with B", "A vs B", "A versus B" and "A compared to B".
	differ          = regexp.MustCompile(`(?i)^(?:(?:how|in what ways?|where)\s+(?:does|do|is|are)\s+(.+?)\s+(?:differ|different)\s+(?:from|to|than)\s+(.+?)|compare\s+(.+?)\s+(?:with|to|and)\s+(.+?)|(?:what\s+(?:is|are)\s+)?(.+?)\s+(?:vs\.?|versus|compared\s+(?:to|with))\s+(.+?))\s*(?:[,:;?]\s*.*)?$`)
	comparisonWords = regexp.MustCompile(`(?i)\b(?:the\s+|a\s+|main\s+|key\s+)*(?:differences?|distinctions?|comparison)\s*(?:is\s+there\s*)?`)
	listSep         = regexp.MustCompile(`,?\s+(?:and|or)\s+|,\s+`)
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
		// Each side is asked about on its own: "What is the difference
		// between A and B" owes "What is A" and "What is B".
		pre, post := comparisonWords.ReplaceAllString(p[:m[0]], ""), p[m[5]:]
		return []string{pre + a + post, pre + b + post}
	}
	if m := differ.FindStringSubmatch(strings.TrimSpace(p)); m != nil {
		// The two sides of the comparison, each asked about on its own:
		// "How does A differ from B" owes "What is A" and "What is B".
		for i := 1; i+1 < len(m); i += 2 {
			if m[i] != "" && m[i+1] != "" {
				return []string{"What is " + m[i], "What is " + m[i+1]}
			}
		}
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

// AddressesWeighted is Addresses with the collection's word weights (IDF;
// weight 0 for a word the collection never uses): a text addresses sub when
// it names words carrying at least half of the sub-question's weight, and
// either two of its words or a single word carrying most of it ("int8" in
// "What is the range of values of an int8?", where "range" and "values"
// are everywhere). A word the collection lacks counts as heavily as the
// sub-question's rarest word, so one shared word never answers a question
// about things the collection does not contain. weight nil: Addresses.
func AddressesWeighted(sub SubQuestion, stems map[string]bool, weight func(string) float64) bool {
	if weight == nil {
		return Addresses(sub, stems)
	}
	share, matched := WeightedShare(sub.Stems, stems, weight)
	if matched == 0 {
		return false
	}
	if matched >= min(2, len(sub.Stems)) {
		return share >= 0.5 || Addresses(sub, stems)
	}
	return share >= singleWordShare
}

// singleWordShare is the share of a sub-question's weight one word must
// carry to answer it alone.
const singleWordShare = 0.5

// WeightedShare returns the share of the words' weight that stems name
// (absent words weighing as much as the heaviest present one) and how many
// words matched.
func WeightedShare(words []string, stems map[string]bool, weight func(string) float64) (float64, int) {
	heaviest := 0.0
	for _, a := range words {
		heaviest = max(heaviest, weight(a))
	}
	if heaviest <= 0 {
		return 0, 0
	}
	total, got := 0.0, 0.0
	matched := 0
	for _, a := range words {
		w := weight(a)
		if w <= 0 {
			w = heaviest
		}
		total += w
		if stems[a] {
			got += w
			matched++
		}
	}
	return got / total, matched
}
