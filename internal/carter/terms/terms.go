// Package terms is carter's one tokenizer: it splits text into lower-cased,
// lightly stemmed content words with their UTF-8 byte offsets. BM25 ranking,
// snippet relevance, coverage and gap detection all call it, so a word the
// ranker matched is the same word the evaluator counts as covered.
//
// terms imports only the standard library and must never import another
// carter package: everything that reads text depends on it.
package terms

import (
	"strings"
	"unicode"
	"unicode/utf8"
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
func Tokenize(text string) []Token {
	var out []Token
	i := 0
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !isWord(r) {
			i += n
			continue
		}
		start := i
		i += n
		for i < len(text) {
			r, n = utf8.DecodeRuneInString(text[i:])
			if isWord(r) {
				i += n
				continue
			}
			if isJoiner(r) && i+n < len(text) {
				r2, _ := utf8.DecodeRuneInString(text[i+n:])
				if isWord(r2) {
					i += n
					continue
				}
			}
			break
		}
		if i-start > maxWordBytes {
			continue
		}
		out = append(out, Token{Stem: Stem(text[start:i]), Start: start, End: i})
	}
	return out
}

func isWord(r rune) bool   { return unicode.IsLetter(r) || unicode.IsDigit(r) }
func isJoiner(r rune) bool { return r == '\'' || r == '.' || r == '-' || r == '_' || r == '’' }

// Content returns the distinct content stems of text in first-seen order:
// Tokenize minus stop words and one-letter words. A question's content stems
// are its aspects.
func Content(text string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range Tokenize(text) {
		if IsStop(t.Stem) || utf8.RuneCountInString(t.Stem) < 2 || seen[t.Stem] {
			continue
		}
		seen[t.Stem] = true
		out = append(out, t.Stem)
	}
	return out
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

// Stem lower-cases a word and strips the common English inflections, so
// "overlaps", "overlapping" and "overlapped" meet. It is deliberately light
// (no Porter rules): a wrong merge costs ranking quality, a missed one only
// recall, and every caller uses the same function.
func Stem(word string) string {
	w := strings.ToLower(strings.Trim(word, "'’.-_"))
	w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
	if !isASCIILetters(w) || len(w) <= 3 {
		return w
	}
	return dropE(stripSuffix(w))
}

// dropE removes a final silent "e" so "store" and "stored" meet at "stor".
func dropE(w string) string {
	if len(w) > 4 && strings.HasSuffix(w, "e") && !strings.HasSuffix(w, "ee") {
		return w[:len(w)-1]
	}
	return w
}

func stripSuffix(w string) string {
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "ing") && len(w) > 5:
		return undouble(w[:len(w)-3])
	case strings.HasSuffix(w, "ed") && len(w) > 4:
		return undouble(w[:len(w)-2])
	case strings.HasSuffix(w, "es") && len(w) > 4 && strings.ContainsAny(w[len(w)-3:len(w)-2], "sxz"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:len(w)-1]
	}
	return w
}

// undouble turns "overlapp" (from "overlapping") back into "overlap".
func undouble(w string) string {
	n := len(w)
	if n >= 3 && w[n-1] == w[n-2] && !strings.ContainsRune("lsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

func isASCIILetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
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
