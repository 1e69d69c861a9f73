package editdocs

import (
	"fmt"
	"strings"
)

// maxDiffEdits bounds the edit distance Diff computes exactly (Myers'
// algorithm costs time in the file size times it, and memory in its
// square). A plan changes some lines here and there, far below it; a
// change beyond it (a file rewritten) shows its differing middle as one
// hunk.
const maxDiffEdits = 4096

// Diff renders each change as hunks: "path:line" (the first changed line,
// 1-based, in the old file) followed by the removed lines prefixed "-" and
// the added lines prefixed "+". The hunks are a shortest edit script
// (Myers), so a long block removed reads as removed, not as lines paired
// with whatever follows it.
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
	// Common head and tail first: most of a file an edit leaves alone.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(ma) == 0 && len(mb) == 0 {
		return nil
	}
	var out []string
	hunk := func(i, j, di, dj int) {
		out = append(out, fmt.Sprintf("%s:%d", path, pre+i+1))
		for _, l := range ma[i : i+di] {
			out = append(out, "-"+l)
		}
		for _, l := range mb[j : j+dj] {
			out = append(out, "+"+l)
		}
	}
	keep, ok := sameLines(ma, mb)
	if !ok {
		hunk(0, 0, len(ma), len(mb))
		return out
	}
	// Between two kept pairs (and the ends) is one hunk.
	i, j := 0, 0
	for _, k := range append(keep, [2]int{len(ma), len(mb)}) {
		if k[0] > i || k[1] > j {
			hunk(i, j, k[0]-i, k[1]-j)
		}
		i, j = k[0]+1, k[1]+1
	}
	return out
}

// sameLines is the longest run of lines a and b share in order, as index
// pairs, found by Myers' O(ND) algorithm; ok is false past maxDiffEdits.
func sameLines(a, b []string) ([][2]int, bool) {
	n, m := len(a), len(b)
	maxD := min(n+m, maxDiffEdits)
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int
	for d := 0; d <= maxD; d++ {
		trace = append(trace, append([]int(nil), v[off-d-1:off+d+2]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = v[off+k+1] // down: a line of b inserted
			} else {
				x = v[off+k-1] + 1 // right: a line of a removed
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, a, b, d, k), true
			}
		}
	}
	return nil, false
}

// backtrack walks the saved frontiers from the end (d edits, diagonal k)
// back to the start, collecting the diagonal moves: the kept pairs.
func backtrack(trace [][]int, a, b []string, d, k int) [][2]int {
	var keep [][2]int
	x, y := len(a), len(b)
	for ; d > 0; d-- {
		// trace[d] is the frontier before step d: indices k' in [-d, d]
		// stored from -d-1.
		fr := trace[d]
		at := func(k int) int { return fr[k+d+1] }
		var pk int
		if k == -d || k != d && at(k-1) < at(k+1) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		// The snake after the step: from the step's end to (x, y).
		sx := px
		if pk == k-1 {
			sx = px + 1
		}
		sy := sx - k
		for x > sx && y > sy {
			x, y = x-1, y-1
			keep = append(keep, [2]int{x, y})
		}
		x, y, k = px, py, pk
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		keep = append(keep, [2]int{x, y})
	}
	for l, r := 0, len(keep)-1; l < r; l, r = l+1, r-1 {
		keep[l], keep[r] = keep[r], keep[l]
	}
	return keep
}
