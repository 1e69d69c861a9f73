package verify

import (
	"fmt"
	"strconv"
	"strings"
)

// ReferencesHeading is the brief's reference section heading; citation
// markers before it are the brief's citations, numbered lines after it are
// its reference list.
const ReferencesHeading = "## References"

// Citations reads a rendered brief: the citation markers ("[3]") in its
// body, and the numbers of its reference list entries ("3. Title — url").
// Markers inside inline code or that are not all digits are not citations.
func Citations(brief string) (markers []int, refs []int) {
	body, list, _ := strings.Cut(brief, "\n"+ReferencesHeading+"\n")
	inCode := false
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '`':
			inCode = !inCode
		case '\n':
			inCode = false
		case '[':
			if inCode || escaped(body, i) {
				continue
			}
			j := i + 1
			for j < len(body) && j-i <= 6 && body[j] >= '0' && body[j] <= '9' {
				j++
			}
			if j > i+1 && j < len(body) && body[j] == ']' {
				if n, err := strconv.Atoi(body[i+1 : j]); err == nil {
					markers = append(markers, n)
				}
				i = j
			}
		}
	}
	for _, line := range strings.Split(list, "\n") {
		if strings.HasPrefix(line, "## ") {
			break
		}
		num, _, ok := strings.Cut(line, ". ")
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(num); err == nil && n > 0 {
			refs = append(refs, n)
		}
	}
	return markers, refs
}

// escaped reports whether the byte at i is preceded by an odd number of
// backslashes (Markdown's escape: "\\[1]" is text, not a citation).
func escaped(s string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// CheckBrief verifies a rendered brief against its reference list: every
// citation marker names a listed reference, the list is numbered 1..n, and
// every listed reference is cited. It returns the problems found.
func CheckBrief(brief string) []string {
	markers, refs := Citations(brief)
	var problems []string
	listed := map[int]bool{}
	for i, n := range refs {
		if n != i+1 {
			problems = append(problems, fmt.Sprintf("reference %d is numbered %d", i+1, n))
		}
		listed[n] = true
	}
	cited := map[int]bool{}
	for _, m := range markers {
		cited[m] = true
		if !listed[m] {
			problems = append(problems, fmt.Sprintf("citation [%d] has no reference", m))
		}
	}
	for _, n := range refs {
		if !cited[n] {
			problems = append(problems, fmt.Sprintf("reference %d is never cited", n))
		}
	}
	return problems
}
