package kicad

import "strings"

// CompareRefdes orders reference designators the way an engineer reads them:
// runs of digits compare as numbers, so R2 < R10 < R100 and U2A < U10A, while
// the letters between them compare as text (C1 < R1). It returns -1, 0 or +1.
//
// Numbers with leading zeros equal to a shorter spelling (R01 and R1) are
// ordered by their spelling as a last resort, so the order is total and a
// sort is deterministic.
func CompareRefdes(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if isDigit(a[i]) && isDigit(b[j]) {
			si, sj := i, j
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			// Compare the runs as numbers of any length: strip leading zeros,
			// then the longer run is larger, then the first differing digit decides.
			na := strings.TrimLeft(a[si:i], "0")
			nb := strings.TrimLeft(b[sj:j], "0")
			if len(na) != len(nb) {
				return cmpInt(len(na), len(nb))
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			continue
		}
		if a[i] != b[j] {
			return cmpInt(int(a[i]), int(b[j]))
		}
		i++
		j++
	}
	if c := cmpInt(len(a)-i, len(b)-j); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
