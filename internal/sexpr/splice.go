package sexpr

import (
	"fmt"
	"sort"
)

// Edit replaces the bytes [Start, End) of a source with Text.
type Edit struct {
	Start, End int
	Text       string
}

// Splice applies non-overlapping edits to src and returns the new bytes; every
// byte outside the edited spans is kept as it was, so a diff shows only the
// change.
func Splice(src []byte, edits []Edit) ([]byte, error) {
	es := append([]Edit(nil), edits...)
	sort.SliceStable(es, func(i, j int) bool { return es[i].Start < es[j].Start })
	out := make([]byte, 0, len(src))
	prev := 0
	for _, e := range es {
		if e.Start < prev || e.End < e.Start || e.End > len(src) {
			return nil, fmt.Errorf("splice: edit [%d,%d) overlaps another or lies outside the %d-byte source", e.Start, e.End, len(src))
		}
		out = append(out, src[prev:e.Start]...)
		out = append(out, e.Text...)
		prev = e.End
	}
	return append(out, src[prev:]...), nil
}
