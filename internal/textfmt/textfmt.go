// Package textfmt holds the small text shapers that messages, reports and
// tool results share: folding text onto one line (OneLine, JoinLines),
// cutting it to a size (Clip, ClipBytes, CutBytes), and counting a noun
// (Count, CountForms, Noun: "1 net", "3 nets"). Each was written again in one package
// after another; here each has one definition and one table of cases.
//
// Where the copies disagreed (bytes or runes, an ellipsis or none, a regular
// plural or two given forms) each behaviour is a function of its own, so no
// caller's output changed when it moved here. For "the first non-empty
// string", use the standard library's cmp.Or.
//
// It imports only the standard library.
package textfmt

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Ellipsis marks where Clip and ClipBytes cut text.
const Ellipsis = "…"

// OneLine folds every run of white space in s (newlines included) into one
// space and trims both ends, so a multi-line message prints as one line.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// JoinLines joins the non-blank lines of s, each trimmed of white space,
// with sep: a tool's multi-line stderr as one line ("fatal: x; hint: y").
func JoinLines(s, sep string) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, sep)
}

// Clip returns s when it has at most n runes; otherwise its first n-1 runes
// and Ellipsis, n runes in all. It never splits a rune.
func Clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:max(n-1, 0)]) + Ellipsis
}

// ClipBytes returns s when it has at most n bytes; otherwise its first n
// bytes with any invalid UTF-8 among them (a rune the cut split) dropped,
// and Ellipsis after them.
func ClipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + Ellipsis
}

// CutBytes returns s when it has at most n bytes; otherwise its first n
// bytes, shortened further, a byte at a time, until they are valid UTF-8 (so
// a rune the cut split is dropped). It adds no mark.
func CutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// Count is n and the noun in the number n calls for, with the regular
// English plural: "1 net", "0 nets", "3 nets", and "es" after s, x, ch and
// sh ("2 mismatches"). For any other plural, use CountForms.
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	for _, end := range []string{"ch", "sh", "s", "x"} {
		if strings.HasSuffix(noun, end) {
			return strconv.Itoa(n) + " " + noun + "es"
		}
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// CountForms is n and one (when n is 1) or many: "1 entry", "3 entries".
func CountForms(n int, one, many string) string {
	return strconv.Itoa(n) + " " + Noun(n, one, many)
}

// Noun is one when n is 1 and many otherwise, without the number: for
// sentences such as "3 claims were removed".
func Noun(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
