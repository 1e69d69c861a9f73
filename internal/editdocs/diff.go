package editdocs

import (
	"fmt"
	"strings"
)

// resyncWindow bounds how far Diff looks ahead for lines that agree again
// after a difference. Edits change a few lines in place, so a small window
// finds the resync point; a rewrite larger than it shows as one hunk.
const resyncWindow = 200

// Diff renders each change as hunks: "path:line" (the first changed line,
// 1-based, in the old file) followed by the removed lines prefixed "-" and
// the added lines prefixed "+". It is a preview, linear in the file size
// for in-place edits, not a minimal diff.
func Diff(changes []Change) []string {
	var out []string
	for _, c := range changes {
		out = append(out, diffLines(c.Path, splitLines(c.Old), splitLines(c.New))...)
	}
	return out
}

func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func diffLines(path string, a, b []string) []string {
	var out []string
	hunk := func(i, j, di, dj int) {
		out = append(out, fmt.Sprintf("%s:%d", path, i+1))
		for _, l := range a[i : i+di] {
			out = append(out, "-"+l)
		}
		for _, l := range b[j : j+dj] {
			out = append(out, "+"+l)
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if i < len(a) && j < len(b) && a[i] == b[j] {
			i, j = i+1, j+1
			continue
		}
		di, dj, ok := resync(a, b, i, j)
		if !ok {
			hunk(i, j, len(a)-i, len(b)-j)
			break
		}
		hunk(i, j, di, dj)
		i, j = i+di, j+dj
	}
	return out
}

// resync finds the nearest offsets (smallest di+dj) at which a and b agree
// again, on a line and the one after it (so a blank or brace line alone
// does not count), or at both ends.
func resync(a, b []string, i, j int) (int, int, bool) {
	agree := func(x, y int) bool {
		if x == len(a) && y == len(b) {
			return true
		}
		if x >= len(a) || y >= len(b) || a[x] != b[y] {
			return false
		}
		return x+1 >= len(a) && y+1 >= len(b) || x+1 < len(a) && y+1 < len(b) && a[x+1] == b[y+1]
	}
	for s := 1; s <= 2*resyncWindow; s++ {
		for di := max(0, s-resyncWindow); di <= min(s, resyncWindow); di++ {
			dj := s - di
			if i+di > len(a) || j+dj > len(b) {
				continue
			}
			if agree(i+di, j+dj) {
				return di, dj, true
			}
		}
	}
	return 0, 0, false
}
