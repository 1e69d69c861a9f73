package sexpr

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks that no input makes the reader panic, and that every span
// it reports lies inside the input and nests inside its parent.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`(kicad_sch (version 20250114) (generator "eeschema"))`,
		`(a "b\"c" (d 1.27 -2) e)`,
		`(a "unterminated`,
		`((((`,
		`(x "\x4" "\777")`,
	} {
		f.Add([]byte(s))
	}
	// Seed with slices of real files so the fuzzer starts from KiCad's shapes.
	for _, p := range []string{"pic_programmer/pic_programmer.kicad_sch", "complex_hierarchy/ampli_ht.kicad_sch"} {
		if src, err := os.ReadFile(filepath.Join(demoDir, p)); err == nil {
			f.Add(src[:min(len(src), 4096)])
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		n, err := Parse("fuzz", src)
		if err != nil {
			if _, ok := err.(*SyntaxError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		var check func(n *Node, lo, hi int)
		check = func(n *Node, lo, hi int) {
			if n.Start < lo || n.End > hi || n.Start >= n.End {
				t.Fatalf("span [%d,%d) outside parent [%d,%d)", n.Start, n.End, lo, hi)
			}
			if n.Kind == List && (src[n.Start] != '(' || src[n.End-1] != ')') {
				t.Fatalf("list span [%d,%d) does not run from '(' to ')'", n.Start, n.End)
			}
			for i := range n.Children {
				check(&n.Children[i], n.Start, n.End)
			}
		}
		check(n, 0, len(src))
	})
}
