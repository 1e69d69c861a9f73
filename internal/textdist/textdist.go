// Package textdist measures how far apart two names are, for the "did you
// mean" suggestions refusals offer (unknown nets, refs, library symbols,
// explain subjects). It imports only the standard library.
package textdist

import (
	"sort"
	"strings"
)

// Levenshtein is the edit distance between a and b in runes: insertions,
// deletions and substitutions each cost one.
func Levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// Closest ranks names by closeness to want and returns the best n:
// case-insensitive edit distance, with a name containing want (or contained
// in it) counted as close whatever its length, ties broken by name. It is
// the ranking behind every "closest:" and "did you mean" suggestion.
func Closest(want string, names []string, n int) []string {
	lw := strings.ToLower(want)
	type scored struct {
		name string
		d    int
	}
	s := make([]scored, 0, len(names))
	for _, name := range names {
		ln := strings.ToLower(name)
		d := Levenshtein(lw, ln)
		if strings.Contains(ln, lw) || strings.Contains(lw, ln) {
			d = min(d, 1+absInt(len(ln)-len(lw))/4)
		}
		s = append(s, scored{name, d})
	}
	sort.Slice(s, func(i, j int) bool {
		if s[i].d != s[j].d {
			return s[i].d < s[j].d
		}
		return s[i].name < s[j].name
	})
	out := make([]string, 0, n)
	for i := 0; i < len(s) && i < n; i++ {
		out = append(out, s[i].name)
	}
	return out
}

func absInt(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
