// Package terms is carter's one tokenizer: it splits text into lower-cased,
// stemmed content words with their UTF-8 byte offsets. BM25 ranking, passage
// relevance, coverage and gap detection all call it, so a word the ranker
// matched is the same word the evaluator counts as covered.
//
// Words are stemmed with the Snowball (Porter2) English stemmer after
// British spellings are folded to American ones ("behaviour" meets
// "behavior", "initialise" meets "initialize"). A hyphenated or
// underscored word yields the joined form and each part ("data-race-free":
// data-race-free, data, race, free). A one-letter command-line option
// ("-e") is a word of its own, case kept. Text in scripts written without
// spaces (Chinese, Japanese, Korean) is split into overlapping character
// pairs, the usual indexing unit when no word list is at hand.
//
// terms imports the standard library and the Snowball stemmer; it must never
// import another carter package: everything that reads text depends on it.
package terms

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// Token is one word of a text: its stem and the byte span it came from.
type Token struct {
	Stem       string
	Start, End int // UTF-8 byte offsets into the text
}

// maxWordBytes skips "words" longer than any real one: base64 blobs, hashes
// and minified code would otherwise flood the index with unique terms.
const maxWordBytes = 40

// Tokenize returns every word of text (letters and digits, with inner
// apostrophes, dots, hyphens and underscores kept when they join two word
// characters, e.g. "kicad-cli", "v9.0"), stemmed, stop words included.
// Hyphenated words are followed by their parts; CJK runs become character
// bigrams.
func Tokenize(text string) []Token {
	var out []Token
	i := 0
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		if isCJK(r) {
			i = cjkBigrams(text, i, &out)
			continue
		}
		if !isWord(r) {
			i += n
			continue
		}
		start := i
		i += n
		for i < len(text) {
			r, n = utf8.DecodeRuneInString(text[i:])
			if isWord(r) && !isCJK(r) {
				i += n
				continue
			}
			if isJoiner(r) && i+n < len(text) {
				r2, _ := utf8.DecodeRuneInString(text[i+n:])
				if isWord(r2) && !isCJK(r2) {
					i += n
					continue
				}
			}
			break
		}
		if i-start > maxWordBytes {
			continue
		}
		word := text[start:i]
		if opt, ok := optionLetter(text, start, i); ok {
			out = append(out, Token{Stem: opt, Start: start - 1, End: i})
			continue
		}
		out = append(out, Token{Stem: Stem(word), Start: start, End: i})
		if strings.ContainsAny(word, "-_") {
			out = appendParts(out, word, start)
		}
	}
	return out
}

// appendParts adds the parts of a hyphenated or underscored word.
func appendParts(out []Token, word string, start int) []Token {
	off := 0
	for off < len(word) {
		j := strings.IndexAny(word[off:], "-_")
		end := len(word)
		if j >= 0 {
			end = off + j
		}
		if part := word[off:end]; part != "" && part != word {
			out = append(out, Token{Stem: Stem(part), Start: start + off, End: start + end})
		}
		if j < 0 {
			break
		}
		off = end + 1
	}
	return out
}

// optionLetter recognizes a one-letter command-line option: "-e" after a
// space, a line start or an opening bracket, and not followed by a joiner
// (so "e-mail" and "x-axis" are words, not options).
func optionLetter(text string, start, end int) (string, bool) {
	if start == 0 || text[start-1] != '-' || utf8.RuneCountInString(text[start:end]) != 1 {
		return "", false
	}
	r, _ := utf8.DecodeRuneInString(text[start:end])
	if r >= utf8.RuneSelf {
		return "", false
	}
	if start >= 2 {
		before := text[start-2]
		if !(before == ' ' || before == '\t' || before == '\n' || before == '(' || before == '[' || before == '`' || before == '"' || before == '\'' || before == ',') {
			return "", false
		}
	}
	return "-" + text[start:end], true
}

// cjkBigrams emits the overlapping character pairs of the CJK run at i (a
// lone character is its own token) and returns where the run ends.
func cjkBigrams(text string, i int, out *[]Token) int {
	var starts []int
	j := i
	for j < len(text) {
		r, n := utf8.DecodeRuneInString(text[j:])
		if !isCJK(r) {
			break
		}
		starts = append(starts, j)
		j += n
	}
	starts = append(starts, j)
	if len(starts) == 2 {
		*out = append(*out, Token{Stem: text[starts[0]:starts[1]], Start: starts[0], End: starts[1]})
		return j
	}
	for k := 0; k+2 < len(starts); k++ {
		*out = append(*out, Token{Stem: text[starts[k]:starts[k+2]], Start: starts[k], End: starts[k+2]})
	}
	return j
}

func isCJK(r rune) bool {
	return r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r) || r == 'ー')
}

func isWord(r rune) bool   { return unicode.IsLetter(r) || unicode.IsDigit(r) }
func isJoiner(r rune) bool { return r == '\'' || r == '.' || r == '-' || r == '_' || r == '’' }

// Content returns the distinct content stems of text in first-seen order:
// Tokenize minus stop words and one-letter words (options like "-e" are
// kept). A question's content stems are its aspects.
func Content(text string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range Tokenize(text) {
		if !IsContent(t.Stem) || seen[t.Stem] {
			continue
		}
		seen[t.Stem] = true
		out = append(out, t.Stem)
	}
	return out
}

// IsContent reports whether a stem can be an aspect of a question: not a
// stop word and at least two characters long ("-e" is two).
func IsContent(stem string) bool {
	return !IsStop(stem) && utf8.RuneCountInString(stem) >= 2
}

// Stems returns the set of stems in text, stop words excluded.
func Stems(text string) map[string]bool {
	set := map[string]bool{}
	for _, t := range Tokenize(text) {
		if !IsStop(t.Stem) {
			set[t.Stem] = true
		}
	}
	return set
}

// Stem lower-cases a word, folds British spelling to American and applies
// the Snowball English stemmer, so "overlaps", "overlapping" and
// "overlapped" meet, and so do "behaviour" and "behavior". Words with
// digits or other characters (kicad-cli, v9.0, naïve) are only lower-cased.
func Stem(word string) string {
	w := strings.ToLower(strings.Trim(word, "'’.-_"))
	w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
	if !isASCIILetters(w) {
		return w
	}
	w = FoldSpelling(w)
	if len(w) <= 2 {
		return w
	}
	return english.Stem(w, true)
}

func isASCIILetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return s != ""
}

// IsStop reports whether a stem is a stop word: function words and the
// words questions are phrased with ("how", "explain"), which say nothing
// about what a source must contain.
func IsStop(stem string) bool { return stopWords[stem] }

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but if then else of to in on at by for with from into onto
		over under about as is are was were be been being am do doe does did done have ha has had having
		it its it's this that these those there here what which who whom whose when where why how
		can could should would will shall may might must not no nor so than too very just also only
		i me my we our you your he him his she her they them their
		any all some each every both either neither more most other such same own
		up down out off again further once between through during before after above below
		explain describe tell list give show use using used
		there's what's how's let one two
		handle work happen mean need get make find know want way kind thing`) {
		m[Stem(w)] = true
	}
	return m
}()
