// Package extract finds evidence snippets in a source's text: whole
// sentences that address the question, each a UTF-8 byte span [Start, End)
// of exactly the text the artifact store keeps, so a quote is always
// text[Start:End] and anyone can check it by slicing the file.
//
// extract may import terms, policy (for the untrusted-text spans it must
// skip) and the standard library; it must never import a retriever, synth or
// the orchestrator.
package extract

import (
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"copperhead/internal/carter/policy"
	"copperhead/internal/carter/terms"
)

const (
	// minQuoteBytes drops fragments ("See below.") that state nothing.
	minQuoteBytes = 40
	// maxQuoteBytes drops run-on spans (tables flattened into one line,
	// layout text without punctuation): a quote should be readable in the
	// brief, and a claim needs one sentence, not a page.
	maxQuoteBytes = 600
	// DefaultPerSource is how many snippets one source may contribute:
	// enough for a source to back several claims, few enough that one long
	// manual cannot crowd out every other source.
	DefaultPerSource = 6
	// minRelevance is the share of the question's (weighted) aspects a
	// sentence must mention to count as evidence at all.
	minRelevance = 0.3
)

// Snippet is one candidate piece of evidence.
type Snippet struct {
	Start, End int
	Relevance  float64  // 0..1: weighted share of the question's aspects it mentions
	Matched    []string // the aspects it mentions
}

// Options tune Snippets.
type Options struct {
	Aspects   []string             // the question's content stems (terms.Content)
	Weight    func(string) float64 // aspect weight (IDF); nil: all 1
	Skip      []policy.Span        // untrusted spans: no snippet may overlap one
	PerSource int                  // 0: DefaultPerSource
	// Stop, when set, is asked between passages (every stopEvery of
	// them): once it reports true, Snippets returns what it has found so
	// far. The budget and Ctrl-C reach inside one large document this way.
	Stop func() bool
}

// stopEvery is how many passages Snippets reads between Stop checks: a
// few microseconds of work, so a stop lands within milliseconds.
const stopEvery = 64

// Snippets returns the best sentences of text for the question, most
// relevant first (ties: earlier first). Duplicate sentences (a table of
// contents repeating a heading) yield one snippet.
func Snippets(text string, o Options) []Snippet {
	if len(o.Aspects) == 0 {
		return nil
	}
	per := o.PerSource
	if per <= 0 {
		per = DefaultPerSource
	}
	sentences := Sentences(text)
	weight := o.Weight
	if weight == nil {
		weight = inDocumentIDF(text, sentences, o.Aspects, o.Stop)
	}
	total := 0.0
	present := 0
	for _, a := range o.Aspects {
		if w := weight(a); w > 0 {
			total += w
			present++
		}
	}
	if total <= 0 {
		return nil
	}
	need := min(2, present)
	seen := map[string]bool{}
	var out []Snippet
	for i, sp := range sentences {
		if o.Stop != nil && i%stopEvery == 0 && o.Stop() {
			break
		}
		s := text[sp[0]:sp[1]]
		if len(s) < minQuoteBytes || len(s) > maxQuoteBytes || !statement(s) {
			continue
		}
		if policy.Overlaps(o.Skip, sp[0], sp[1]) {
			continue
		}
		stems := map[string]bool{}
		for _, t := range terms.Tokenize(s) {
			stems[t.Stem] = true
		}
		got := 0.0
		var matched []string
		for _, a := range o.Aspects {
			if stems[a] {
				got += weight(a)
				matched = append(matched, a)
			}
		}
		rel := got / total
		if len(matched) < need || rel < minRelevance {
			continue
		}
		key := strings.ToLower(strings.Join(strings.Fields(s), " "))
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, Snippet{Start: sp[0], End: sp[1], Relevance: math.Round(rel*1000) / 1000, Matched: matched})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Relevance > out[j].Relevance })
	if len(out) > per {
		out = out[:per]
	}
	return out
}

// inDocumentIDF weighs each aspect by how rare it is among the text's own
// sentences, for retrievers that know no collection statistics (the web):
// in a manual where "schematic" is in every other sentence and "netlist"
// in a few, a sentence naming the netlist is the better evidence.
func inDocumentIDF(text string, sentences [][2]int, aspects []string, stop func() bool) func(string) float64 {
	df := map[string]int{}
	want := map[string]bool{}
	for _, a := range aspects {
		want[a] = true
	}
	for i, sp := range sentences {
		if stop != nil && i%stopEvery == 0 && stop() {
			break
		}
		seen := map[string]bool{}
		for _, t := range terms.Tokenize(text[sp[0]:sp[1]]) {
			if want[t.Stem] && !seen[t.Stem] {
				seen[t.Stem] = true
				df[t.Stem]++
			}
		}
	}
	n := float64(len(sentences))
	return func(a string) float64 { return math.Log(1 + n/float64(1+df[a])) }
}

// statement reports whether s reads as a sentence: it ends in terminal
// punctuation and is mostly words, not a heading, a table row or code.
func statement(s string) bool {
	last, _ := utf8.DecodeLastRuneInString(strings.TrimRight(s, `"'”’)]`))
	if last != '.' && last != '!' && last != '?' {
		return false
	}
	letters, other := 0, 0
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			letters++
		case unicode.IsSpace(r) || unicode.IsPunct(r):
		default:
			other++
		}
	}
	return letters >= 20 && letters > 2*other && len(strings.Fields(s)) >= 6
}

// abbreviations end in a period that does not end a sentence.
var abbreviations = map[string]bool{
	"e.g": true, "i.e": true, "etc": true, "vs": true, "fig": true, "figs": true, "approx": true,
	"no": true, "nos": true, "mr": true, "mrs": true, "dr": true, "prof": true, "inc": true, "ltd": true,
	"co": true, "corp": true, "st": true, "ca": true, "cf": true, "al": true, "eq": true, "ref": true,
	"sec": true, "ch": true, "vol": true, "pp": true, "p": true, "min": true, "max": true, "ver": true,
}

// Sentences splits text into trimmed sentence spans. Boundaries are blank
// lines, a line break that does not continue a wrapped sentence, and
// terminal punctuation followed by space and a capital, digit or opening
// quote (unless the period ends an abbreviation or an initial).
func Sentences(text string) [][2]int {
	var out [][2]int
	start := 0
	emit := func(end int) {
		s, e := start, end
		for s < e && isSpaceByte(text[s]) {
			s++
		}
		for e > s && isSpaceByte(text[e-1]) {
			e--
		}
		if e > s {
			out = append(out, [2]int{s, e})
		}
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch c {
		case '\n':
			if lineBreakEnds(text, i) {
				emit(i)
				start = i + 1
			}
		case '.', '!', '?':
			j := i + 1
			for j < len(text) && strings.IndexByte(`"')]`, text[j]) >= 0 {
				j++
			}
			if j >= len(text) {
				continue
			}
			if text[j] != ' ' && text[j] != '\t' && text[j] != '\n' {
				continue
			}
			k := j
			for k < len(text) && (text[k] == ' ' || text[k] == '\t') {
				k++
			}
			if k < len(text) && text[k] != '\n' && !opensSentence(text[k:]) {
				continue
			}
			if c == '.' && abbreviated(text[start:i]) {
				continue
			}
			emit(j)
			start = j
		}
	}
	emit(len(text))
	return out
}

// lineBreakEnds decides whether the '\n' at i ends a sentence: always at a
// blank line; otherwise unless the line looks wrapped (it does not end in
// punctuation and the next line starts in lower case).
func lineBreakEnds(text string, i int) bool {
	if i+1 >= len(text) || text[i+1] == '\n' {
		return true
	}
	prev := strings.TrimRight(text[:i], " \t")
	if prev == "" {
		return true
	}
	last, _ := utf8.DecodeLastRuneInString(prev)
	next := strings.TrimLeft(text[i+1:], " \t")
	first, _ := utf8.DecodeRuneInString(next)
	wrapped := !strings.ContainsRune(".!?:;", last) && (unicode.IsLower(first) || (unicode.IsLetter(last) && unicode.IsDigit(first)))
	return !wrapped
}

func opensSentence(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r) || unicode.IsDigit(r) || strings.ContainsRune(`"'“‘([`, r)
}

// abbreviated reports whether the text before a period ends in an
// abbreviation, a single-letter initial, or a number's integer part.
func abbreviated(before string) bool {
	w := before
	if i := strings.LastIndexAny(w, " \t\n(\"'"); i >= 0 {
		w = w[i+1:]
	}
	if w == "" {
		return false
	}
	if utf8.RuneCountInString(w) == 1 {
		r, _ := utf8.DecodeRuneInString(w)
		return unicode.IsLetter(r)
	}
	return abbreviations[strings.ToLower(w)]
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
