// Package extract finds evidence snippets in a source's text: the passages
// (paragraphs, list items, option entries, table rows, definitions,
// headings with their text, sentences of long paragraphs) that address a
// part of the question, each a UTF-8 byte span [Start, End)
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
	// minStructuredBytes is the floor for option entries, table rows and
	// definitions, whose structure says what they are about ("-r, --reverse
	// reverse the result of comparisons").
	minStructuredBytes = 20
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
	Relevance  float64  // 0..1: weighted share of a sub-question's aspects it mentions (the best one)
	Matched    []string // the aspects it mentions
	Kind       Kind     // the structure it was quoted as
	Subs       []int    // the sub-questions (indexes into Options.Subs) it is evidence for
	// CtxStart, CtxEnd span the line the snippet sits under (Unit's
	// context), [0, 0) when none.
	CtxStart, CtxEnd int
}

// Options tune Snippets.
type Options struct {
	Aspects []string // the question's content stems (terms.Content); used when Subs is empty
	// Subs are the content stems of each sub-question (terms.SubQuestions):
	// a passage is evidence when it addresses one of them, and each
	// sub-question gets its own share of the source's snippets, so the
	// second half of a compound question is not crowded out by the first.
	Subs      [][]string
	Weight    func(string) float64 // aspect weight (IDF, 0 for a word the collection lacks); nil: in-document IDF
	Skip      []policy.Span        // untrusted spans: no snippet may overlap one
	PerSource int                  // snippets per sub-question (0: DefaultPerSource for one, fewer each for several)
	// Extra gives some sub-questions more snippets than PerSource (a
	// follow-up round re-reading a source for the sub-questions still
	// without an answer).
	Extra map[int]int
	// Exclude lists spans already taken as evidence: no snippet overlaps one.
	Exclude [][2]int
	// Stop, when set, is asked between passages (every stopEvery of
	// them): once it reports true, Snippets returns what it has found so
	// far. The budget and Ctrl-C reach inside one large document this way.
	Stop func() bool
}

// stopEvery is how many passages Snippets reads between Stop checks: a
// few microseconds of work, so a stop lands within milliseconds.
const stopEvery = 64

// BM25 parameters for passages within one document.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

type scored struct {
	unit  Unit
	rel   []float64 // per sub-question; <0: does not qualify
	key   []float64 // rel plus the term bonus: the ranking key
	bm25  []float64
	stems map[string]bool
	term  map[string]bool // stems of a structured unit's first line (its option, term, row label or title)
	// definesSubject: the unit is a manual page's NAME entry or the
	// opening of its DESCRIPTION (term holds the page's command).
	definesSubject bool
	cmd            map[string]bool // stems of the command an option or definition sits under
}

// termBonus weighs a structured unit whose first line (the option, the
// defined term, the row label, the heading) names the sub-question's
// words: "--hard" over its description is about --hard, while an example
// that mentions "git reset --hard" in passing is not.
const termBonus = 0.25

// maxKey is the highest ranking key: a full share with a full term and
// command bonus, or a page's definition of its command (twice the bonus).
const maxKey = 1 + 3*termBonus

// Snippets returns the best passages of text for the question (see Units:
// paragraphs, list items, option entries, table rows, definitions,
// headings with their text, sentences of long paragraphs), most relevant
// first (ties: earlier first). A passage qualifies for a sub-question when
// it mentions at least two of its aspects (one, if it has one) carrying at
// least minRelevance of their weight; aspects that weigh nothing (absent
// from the collection) do not count. Within a sub-question, passages rank
// by that share, then by BM25. Overlapping and duplicate passages yield
// one snippet.
func Snippets(text string, o Options) []Snippet {
	subs := o.Subs
	if len(subs) == 0 {
		if len(o.Aspects) == 0 {
			return nil
		}
		subs = [][]string{o.Aspects}
	}
	per := o.PerSource
	if per <= 0 {
		per = DefaultPerSource
		if len(subs) > 1 {
			per = max(3, DefaultPerSource/len(subs))
		}
	}
	units := Units(text)
	subject := Subject(text)
	weight := o.Weight
	if weight == nil {
		var all []string
		for _, s := range subs {
			all = append(all, s...)
		}
		weight = inDocumentIDF(text, units, all, o.Stop)
	}
	totals := make([]float64, len(subs))
	for k, sub := range subs {
		for _, a := range sub {
			totals[k] += weight(a)
		}
	}
	var cands []scored
	totalLen := 0
	type tokd struct {
		tf  map[string]int
		len int
	}
	var toks []tokd
	for i, u := range units {
		if o.Stop != nil && i%stopEvery == 0 && o.Stop() {
			break
		}
		s := text[u.Start:u.End]
		if !quotable(s, u) || policy.Overlaps(o.Skip, u.Start, u.End) || overlapsAny(o.Exclude, u.Start, u.End) {
			continue
		}
		tf := map[string]int{}
		n := 0
		scoredText := s
		if u.CtxEnd > u.CtxStart {
			// The line a nested entry sits under says what it is about
			// ("set" for "-e  Exit immediately ..."): its words count.
			scoredText = text[u.CtxStart:u.CtxEnd] + "\n" + s
		}
		for _, t := range terms.Tokenize(scoredText) {
			tf[t.Stem]++
			n++
		}
		totalLen += n
		c := scored{unit: u, rel: make([]float64, len(subs)), key: make([]float64, len(subs)), bm25: make([]float64, len(subs)), stems: map[string]bool{}}
		for st := range tf {
			c.stems[st] = true
		}
		if u.structured() {
			first, _, _ := strings.Cut(s, "\n")
			if u.Kind == KindTableRow {
				first = s[strings.LastIndexByte(s, '\n')+1:] // the row, not its header
			}
			if u.Kind == KindHeading || u.Kind == KindTableRow || strings.IndexByte(s, '\n') >= 0 {
				c.term = terms.Stems(first)
			} else if cols := strings.SplitN(strings.TrimSpace(first), "  ", 2); len(cols) == 2 {
				c.term = terms.Stems(cols[0]) // "-r, --reverse  reverse the result"
			}
			if u.Kind == KindTableRow && len(strings.Fields(first)) > 0 {
				c.term = terms.Stems(strings.Fields(first)[0]) // the row's label column
			}
			if title := strings.TrimSpace(first); (u.Kind == KindHeading || u.Kind == KindDefinition) && (title == "NAME" || title == "DESCRIPTION") && subject[1] > subject[0] && u.End >= subject[1] {
				// A manual page's NAME entry and the opening of its
				// DESCRIPTION are the page's own definition of its
				// command: they are about the command the page names.
				c.term = terms.Stems(SubjectName(text[subject[0]:subject[1]]))
				c.definesSubject = true
			}
			if (u.Kind == KindOption || u.Kind == KindDefinition) && u.CtxEnd > u.CtxStart {
				// An entry is about the command it sits under as much as
				// its own option: set's "-e", not read's "-e"; sort's
				// "-r", not ls's.
				c.cmd = terms.Stems(commandOf(text[u.CtxStart:u.CtxEnd]))
			}
		}
		cands = append(cands, c)
		toks = append(toks, tokd{tf, n})
	}
	if len(cands) == 0 {
		return nil
	}
	avg := float64(totalLen) / float64(len(cands))
	for i := range cands {
		c := &cands[i]
		for k, sub := range subs {
			c.rel[k] = -1
			if totals[k] <= 0 {
				continue
			}
			got, matched, bm := 0.0, 0, 0.0
			for _, a := range sub {
				w := weight(a)
				f := float64(toks[i].tf[a])
				if w <= 0 || f == 0 {
					continue
				}
				got += w
				matched++
				norm := 1 - bm25B + bm25B*float64(toks[i].len)/avg
				bm += w * f * (bm25K1 + 1) / (f + bm25K1*norm)
			}
			rel := got / totals[k]
			// Two matched words are needed whenever the sub-question has
			// two (absent ones included: a question the corpus shares one
			// word with is not answered by that word), while the share is
			// taken over the words the collection has. One word may do
			// when it carries most of the weight (terms.AddressesWeighted).
			ok := matched >= min(2, len(sub)) && rel >= minRelevance
			if !ok && matched == 1 && len(sub) > 1 {
				share, _ := terms.WeightedShare(sub, c.stems, weight)
				ok = share >= 0.5
			}
			if ok {
				bonus, cmd := 0.0, 0.0 // cmd: 1 when the sub-question names the entry's command
				for _, a := range sub {
					if c.term[a] {
						bonus += weight(a)
					}
					if c.cmd[a] && weight(a) > 0 {
						cmd = 1
					}
				}
				c.rel[k], c.bm25[k] = rel, bm
				// An entry of a command the sub-question names gets the
				// full bonus, however common the command's name is in the
				// collection: for "what does bash set -e do", set's "-e"
				// outranks read's; for "sort lines in reverse", sort's
				// "-r" outranks ls's.
				c.key[k] = rel + termBonus*bonus/totals[k] + termBonus*cmd
				if c.definesSubject && namesOnly(sub, c.term, weight) {
					// A sub-question about nothing but the page's command
					// ("what is git rebase", one side of a comparison) is
					// answered first by the page's own definition of it,
					// before any of the page's option entries.
					c.key[k] += 2 * termBonus
				}
			}
		}
	}
	picked := map[int][]int{} // candidate -> subs
	var order []int
	var taken [][2]int
	seen := map[string]bool{}
	for k := range subs {
		var idx []int
		for i := range cands {
			if cands[i].rel[k] >= 0 {
				idx = append(idx, i)
			}
		}
		sort.SliceStable(idx, func(a, b int) bool {
			ca, cb := cands[idx[a]], cands[idx[b]]
			if ca.key[k] != cb.key[k] {
				return ca.key[k] > cb.key[k]
			}
			if ca.bm25[k] != cb.bm25[k] {
				return ca.bm25[k] > cb.bm25[k]
			}
			return ca.unit.Start < cb.unit.Start
		})
		quota := per + o.Extra[k]
		n := 0
		for _, i := range idx {
			if n == quota {
				break
			}
			if _, ok := picked[i]; ok {
				picked[i] = append(picked[i], k)
				n++
				continue
			}
			u := cands[i].unit
			key := strings.ToLower(strings.Join(strings.Fields(text[u.Start:u.End]), " "))
			if seen[key] || overlapsAny(taken, u.Start, u.End) {
				continue
			}
			seen[key] = true
			taken = append(taken, [2]int{u.Start, u.End})
			picked[i] = []int{k}
			order = append(order, i)
			n++
		}
	}
	var out []Snippet
	keys := map[int]float64{} // start -> ranking key
	for _, i := range order {
		c := cands[i]
		best, key := 0.0, 0.0
		var matched []string
		ms := map[string]bool{}
		for _, k := range picked[i] {
			best = max(best, c.rel[k])
			key = max(key, c.key[k])
		}
		keys[c.unit.Start] = key
		// The relevance reported is the ranking key scaled into 0..1 (the
		// share, the term bonus and the subject bonus), so consumers that
		// rank by it across sources see the same order, a page's own
		// definition of its command above a passage that merely names it.
		best = min(1, key/maxKey)
		for _, sub := range subs {
			for _, a := range sub {
				if c.stems[a] && !ms[a] {
					ms[a] = true
					matched = append(matched, a)
				}
			}
		}
		subsOf := append([]int(nil), picked[i]...)
		sort.Ints(subsOf)
		out = append(out, Snippet{Start: c.unit.Start, End: c.unit.End, Relevance: math.Round(best*1000) / 1000,
			Matched: matched, Kind: c.unit.Kind, Subs: subsOf, CtxStart: c.unit.CtxStart, CtxEnd: c.unit.CtxEnd})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if ki, kj := keys[out[i].Start], keys[out[j].Start]; ki != kj {
			return ki > kj
		}
		return out[i].Start < out[j].Start
	})
	return out
}

// namesOnly reports whether every word of sub the collection has is in
// name (the sub-question asks about the named command and nothing else).
// A hyphenated word is in name when each of its parts is ("cherry-pick"
// in "git-cherry-pick").
func namesOnly(sub []string, name map[string]bool, weight func(string) float64) bool {
	n := 0
	for _, a := range sub {
		if weight(a) <= 0 {
			continue
		}
		if !name[a] && !partsIn(a, name) {
			return false
		}
		n++
	}
	return n > 0
}

// partsIn reports whether a hyphenated or underscored stem's parts are all
// in set.
func partsIn(stem string, set map[string]bool) bool {
	if !strings.ContainsAny(stem, "-_") {
		return false
	}
	for _, t := range terms.Tokenize(stem) {
		if t.Stem != stem && !set[t.Stem] {
			return false
		}
	}
	return true
}

// commandOf returns the command a context line names: a subject line's
// names ("sort - sort lines of text files": "sort"), else the line's first
// word ("set [-abefhkmn...]": "set").
func commandOf(ctx string) string {
	if name := SubjectName(ctx); name != strings.TrimSpace(ctx) {
		return name
	}
	if f := strings.Fields(ctx); len(f) > 0 {
		return strings.Trim(f[0], "[](){}<>:,")
	}
	return ""
}

func overlapsAny(spans [][2]int, s, e int) bool {
	for _, sp := range spans {
		if s < sp[1] && sp[0] < e {
			return true
		}
	}
	return false
}

// quotable reports whether a unit can stand as evidence: long enough to
// state something, short enough to read, and mostly words. Paragraphs and
// sentences must read as statements (terminal punctuation); option
// entries, table rows, definitions and list items carry their meaning in
// their structure.
func quotable(s string, u Unit) bool {
	if len(s) > maxQuoteBytes {
		return false
	}
	if u.structured() {
		return len(s) >= minStructuredBytes && wordy(s, 10, 3)
	}
	return len(s) >= minQuoteBytes && statement(s)
}

// inDocumentIDF weighs each aspect by how rare it is among the text's own
// passages, for retrievers that know no collection statistics (the web):
// in a manual where "schematic" is in every other passage and "netlist"
// in a few, a passage naming the netlist is the better evidence. A word
// the document never uses weighs 0.
func inDocumentIDF(text string, units []Unit, aspects []string, stop func() bool) func(string) float64 {
	df := map[string]int{}
	want := map[string]bool{}
	for _, a := range aspects {
		want[a] = true
	}
	for i, u := range units {
		if stop != nil && i%stopEvery == 0 && stop() {
			break
		}
		seen := map[string]bool{}
		for _, t := range terms.Tokenize(text[u.Start:u.End]) {
			if want[t.Stem] && !seen[t.Stem] {
				seen[t.Stem] = true
				df[t.Stem]++
			}
		}
	}
	n := float64(len(units))
	return func(a string) float64 {
		if df[a] == 0 {
			return 0
		}
		return math.Log(1 + n/float64(1+df[a]))
	}
}

// statement reports whether s reads as a sentence: it ends in terminal
// punctuation and is mostly words, not a heading, a table row or code.
func statement(s string) bool {
	last, _ := utf8.DecodeLastRuneInString(strings.TrimRight(s, `"'”’)]`))
	if last != '.' && last != '!' && last != '?' {
		return false
	}
	letters, other := letterCounts(s)
	return letters >= 20 && letters > 2*other && len(strings.Fields(s)) >= 6
}

// wordy: at least minLetters letters, minWords words, and more letters
// than other non-space characters (not a code line or a number table).
func wordy(s string, minLetters, minWords int) bool {
	letters, other := letterCounts(s)
	return letters >= minLetters && letters > other && len(strings.Fields(s)) >= minWords
}

// letterCounts counts the letters of s and its other characters that are
// neither space nor punctuation (digits, symbols, code).
func letterCounts(s string) (letters, other int) {
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			letters++
		case unicode.IsSpace(r) || unicode.IsPunct(r):
		default:
			other++
		}
	}
	return letters, other
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
