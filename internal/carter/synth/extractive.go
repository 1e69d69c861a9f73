package synth

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"copperhead/internal/carter/artifact"
	"copperhead/internal/carter/ids"
	"copperhead/internal/carter/terms"
)

const (
	// maxFindings keeps the brief to one or two pages: ten findings with
	// their citations, plus any contradictions.
	maxFindings = 10
	// sameClaim is the stem-set overlap (Jaccard) above which two evidence
	// sentences say the same thing and become one claim with two citations.
	sameClaim = 0.6
	// conflictOverlap is the overlap above which two sentences from
	// different sources talk about the same thing, so differing numbers or
	// opposite polarity are a contradiction rather than two topics.
	conflictOverlap = 0.5
	// maxClaimRunes bounds one claim's text; longer quotes are cut at a
	// word and the quote itself stays whole in claims.json.
	maxClaimRunes = 400
	// maxContextRunes bounds the context line put before a claim.
	maxContextRunes = 80
)

// Extractive drafts claims without a model: each claim is an evidence
// sentence (near-duplicates merged, their citations combined), and two
// sentences from different sources that state different numbers or opposite
// polarity about the same thing become a contradiction claim citing both.
type Extractive struct{}

// Name reports "extractive".
func (Extractive) Name() string { return "extractive" }

type group struct {
	text    string
	stems   map[string]bool
	ev      []artifact.Evidence
	sources map[string]bool
	best    float64
}

// Synthesize drafts the claims.
func (Extractive) Synthesize(_ context.Context, in Input) (Output, error) {
	ev := append([]artifact.Evidence(nil), in.Evidence...)
	// Most relevant first; ties keep the record's order, which is the
	// search's rank of the source and the extractor's rank within it.
	sort.SliceStable(ev, func(i, j int) bool { return ev[i].Relevance > ev[j].Relevance })
	var groups []*group
	for _, e := range ev {
		text := ClaimText(e.Quote)
		if text == "" {
			continue
		}
		if e.Context != "" {
			// A nested option or a far table row is stated under the line
			// that says what it belongs to.
			text = clip(strings.Join(strings.Fields(e.Context), " "), maxContextRunes) + ": " + text
		}
		stems := terms.Stems(text)
		merged := false
		for _, g := range groups {
			// Sentences that differ only in a number are not the same
			// claim: they are the contradiction the brief must show.
			if jaccard(stems, g.stems) >= sameClaim && !quantitiesConflict(text, g.text) {
				g.ev = append(g.ev, e)
				g.sources[e.SourceID] = true
				merged = true
				break
			}
		}
		if !merged {
			groups = append(groups, &group{text: text, stems: stems, ev: []artifact.Evidence{e},
				sources: map[string]bool{e.SourceID: true}, best: e.Relevance})
		}
	}
	aspects := terms.Content(in.Question)
	var weight func(string) float64
	if len(in.Weights) > 0 {
		weight = func(s string) float64 { return in.Weights[s] }
	}
	groups = pickForCoverage(groups, terms.SubQuestions(in.Question), weight, maxFindings)
	var claims []artifact.Claim
	for _, g := range groups {
		tag := artifact.TagFinding
		if isDefinition(g.text, aspects) {
			tag = artifact.TagDefinition
		}
		conf := math.Min(1, g.best*(0.8+0.1*float64(len(g.sources)-1)))
		claims = append(claims, artifact.Claim{
			ID:          ids.Derive(in.Start, in.RunID, "claim", g.text),
			Text:        g.text,
			EvidenceIDs: evidenceIDs(g.ev),
			Confidence:  math.Round(conf*100) / 100,
			Tags:        []string{tag},
		})
	}
	claims = append(claims, contradictions(in, groups)...)
	return Output{Claims: claims}, nil
}

// pickForCoverage keeps at most n groups, most relevant first, but first
// makes sure every sub-question some group addresses is addressed by a
// kept one (the best group for each, in question order): ten findings
// about the first half of a compound question would leave the second half
// unanswered. Relevance order is kept.
func pickForCoverage(groups []*group, subs []terms.SubQuestion, weight func(string) float64, n int) []*group {
	if len(groups) <= n {
		return groups
	}
	keep := make([]bool, len(groups))
	kept := 0
	for _, sub := range subs {
		if kept == n {
			break
		}
		for i, g := range groups {
			if terms.AddressesWeighted(sub, g.stems, weight) {
				if !keep[i] {
					keep[i] = true
					kept++
				}
				break
			}
		}
	}
	for i := range groups {
		if kept == n {
			break
		}
		if !keep[i] {
			keep[i] = true
			kept++
		}
	}
	var out []*group
	for i, g := range groups {
		if keep[i] {
			out = append(out, g)
		}
	}
	return out
}

func evidenceIDs(ev []artifact.Evidence) []string {
	out := make([]string, 0, len(ev))
	seen := map[string]bool{}
	for _, e := range ev {
		if !seen[e.ID] {
			seen[e.ID] = true
			out = append(out, e.ID)
		}
	}
	return out
}

// contradictions pairs up groups from different sources that talk about the
// same thing but disagree on a number (with the same unit) or on polarity.
func contradictions(in Input, groups []*group) []artifact.Claim {
	title := map[string]string{}
	for _, s := range in.Sources {
		title[s.ID] = s.Title
	}
	var out []artifact.Claim
	for i := 0; i < len(groups); i++ {
		for j := i + 1; j < len(groups); j++ {
			a, b := groups[i], groups[j]
			ea, eb := a.ev[0], b.ev[0]
			if ea.SourceID == eb.SourceID || sharesSource(a, b) {
				continue
			}
			why := conflict(a, b)
			if why == "" {
				continue
			}
			text := fmt.Sprintf("Sources disagree (%s): %s says “%s”, while %s says “%s”", why,
				nameOf(title[ea.SourceID]), clip(a.text, 160), nameOf(title[eb.SourceID]), clip(b.text, 160))
			out = append(out, artifact.Claim{
				ID:          ids.Derive(in.Start, in.RunID, "contradiction", a.text, b.text),
				Text:        text,
				EvidenceIDs: []string{ea.ID, eb.ID},
				Confidence:  math.Round(math.Min(a.best, b.best)*100) / 100,
				Tags:        []string{artifact.TagContradiction},
			})
		}
	}
	return out
}

func sharesSource(a, b *group) bool {
	for s := range a.sources {
		if b.sources[s] {
			return true
		}
	}
	return false
}

func nameOf(t string) string {
	if t == "" {
		return "one source"
	}
	return clip(t, 60)
}

var negation = regexp.MustCompile(`(?i)\b(not|never|no|cannot|can't|won't|doesn't|don't|isn't|aren't|unsupported|impossible)\b`)

// conflict names why two claims disagree, or "".
func conflict(a, b *group) string {
	if jaccard(withoutNumbers(a.stems), withoutNumbers(b.stems)) < conflictOverlap {
		return ""
	}
	if quantitiesConflict(a.text, b.text) {
		return "different values"
	}
	if negation.MatchString(a.text) != negation.MatchString(b.text) {
		return "opposite statements"
	}
	return ""
}

// quantitiesConflict reports whether a and b state different values for
// the same unit.
func quantitiesConflict(a, b string) bool {
	qa, qb := quantities(a), quantities(b)
	for unit, va := range qa {
		if vb, ok := qb[unit]; ok && !sameSet(va, vb) {
			return true
		}
	}
	return false
}

func quantities(s string) map[string][]string {
	out := map[string][]string{}
	for _, q := range terms.Quantities(s) {
		if q.Unit == "" {
			continue // a bare number (a version, a year) is no measurement to disagree on
		}
		out[q.Unit] = append(out[q.Unit], q.Value)
	}
	return out
}

func sameSet(a, b []string) bool {
	set := map[string]bool{}
	for _, x := range a {
		set[x] = true
	}
	for _, x := range b {
		if !set[x] {
			return false
		}
	}
	return len(a) > 0 && len(b) > 0 && len(set) == len(uniq(b))
}

func uniq(xs []string) map[string]bool {
	m := map[string]bool{}
	for _, x := range xs {
		m[x] = true
	}
	return m
}

func withoutNumbers(s map[string]bool) map[string]bool {
	out := map[string]bool{}
	for k := range s {
		if strings.TrimLeft(k, "0123456789.,") != "" {
			out[k] = true
		}
	}
	return out
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 0
	}
	inter := 0
	for k := range a {
		if b[k] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

var definitionRE = regexp.MustCompile(`^(?:(?:A|An|The)\s+)?([^,.;:]{1,60}?)\s+(?:is|are|refers to|means)\s+(?:a|an|the|used|defined)\b`)

func isDefinition(text string, aspects []string) bool {
	m := definitionRE.FindStringSubmatch(text)
	if m == nil {
		return false
	}
	subj := terms.Stems(m[1])
	for _, a := range aspects {
		if subj[a] {
			return true
		}
	}
	return false
}

var listMarker = regexp.MustCompile(`^(?:[-*•·]\s+|\(?\d{1,2}[.)]\s+|[a-z][.)]\s+)`)

// ClaimText turns a quote into claim prose: whitespace collapsed (layout
// text wraps lines), a leading list marker dropped, cut at a word past
// maxClaimRunes. The quote itself is never changed.
func ClaimText(quote string) string {
	s := strings.Join(strings.Fields(quote), " ")
	s = listMarker.ReplaceAllString(s, "")
	return clip(s, maxClaimRunes)
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n]
	cut := strings.LastIndexByte(string(r), ' ')
	out := string(r)
	if cut > n/2 {
		out = out[:cut]
	}
	return strings.TrimRight(out, " ,;:") + "…"
}
