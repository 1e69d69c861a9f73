package editdocs

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// apply rebuilds the new file from the old one and Diff's hunks, so a
// test can check that the hunks say exactly what changed.
func apply(t testing.TB, old []string, hunks []string) []string {
	t.Helper()
	var out []string
	at := 0
	for i := 0; i < len(hunks); {
		h := hunks[i]
		n, err := strconv.Atoi(h[strings.LastIndexByte(h, ':')+1:])
		if err != nil || n-1 < at || n-1 > len(old) {
			t.Fatalf("bad hunk header %q at old line %d", h, at+1)
		}
		out = append(out, old[at:n-1]...)
		at = n - 1
		for i++; i < len(hunks) && (strings.HasPrefix(hunks[i], "-") || strings.HasPrefix(hunks[i], "+")); i++ {
			l := hunks[i]
			if l[0] == '-' {
				if at >= len(old) || old[at] != l[1:] {
					t.Fatalf("hunk %q removes %q, old line %d is not it", h, l[1:], at+1)
				}
				at++
			} else {
				out = append(out, l[1:])
			}
		}
	}
	return append(out, old[at:]...)
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func TestDiffLines(t *testing.T) {
	long := make([]string, 450)
	for i := range long {
		long[i] = fmt.Sprintf("(symbol %d)", i)
	}
	withLong := append(append([]string{"head", "a"}, long...), "b", "tail")
	for _, tc := range []struct {
		name     string
		old, new []string
		hunks    int // how many hunks, -1: any
		changed  int // how many - and + lines
	}{
		{"same", lines("a,b,c"), lines("a,b,c"), 0, 0},
		{"empty to some", nil, lines("a,b"), 1, 2},
		{"some to empty", lines("a,b"), nil, 1, 2},
		{"one line changed", lines("a,b,c"), lines("a,x,c"), 1, 2},
		{"two places", lines("a,b,c,d,e,f,g"), lines("a,B,c,d,e,F,g"), 2, 4},
		{"insert", lines("a,c"), lines("a,b,c"), 1, 1},
		// A block longer than any look-ahead window removed: one hunk of
		// removed lines, nothing paired with what follows.
		{"long block removed", withLong, lines("head,a,b,tail"), 1, 450},
		{"long block added", lines("head,a,b,tail"), withLong, 1, 450},
		{"repeated lines", lines(")),)),x,)),))"), lines(")),)),))"), 1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := diffLines("f", tc.old, tc.new)
			hunks, changed := 0, 0
			for _, l := range got {
				switch {
				case strings.HasPrefix(l, "f:"):
					hunks++
				default:
					changed++
				}
			}
			if tc.hunks >= 0 && hunks != tc.hunks || changed != tc.changed {
				t.Fatalf("%d hunks, %d changed lines, want %d and %d:\n%s", hunks, changed, tc.hunks, tc.changed, strings.Join(got, "\n"))
			}
			if rebuilt := apply(t, tc.old, got); strings.Join(rebuilt, "\n") != strings.Join(tc.new, "\n") {
				t.Fatalf("the hunks do not rebuild the new file:\n%s", strings.Join(got, "\n"))
			}
		})
	}
}

func FuzzDiffLines(f *testing.F) {
	f.Add("a,b,c", "a,x,c")
	f.Add("", "a")
	f.Add("a,a,a,b", "b,a,a,a")
	f.Fuzz(func(t *testing.T, old, new string) {
		a, b := lines(old), lines(new)
		if len(a)+len(b) > 2000 {
			return
		}
		got := diffLines("f", a, b)
		if rebuilt := apply(t, a, got); strings.Join(rebuilt, "\x00") != strings.Join(b, "\x00") {
			t.Fatalf("the hunks do not rebuild the new file:\n%s", strings.Join(got, "\n"))
		}
	})
}

// BenchmarkDiffLines: a 20,000-line sheet with a 400-line block removed
// and ten lines changed elsewhere, the shape of a remove-part preview.
func BenchmarkDiffLines(b *testing.B) {
	old := make([]string, 20000)
	for i := range old {
		old[i] = fmt.Sprintf("\t(xy %d %d)", i%97, i)
	}
	nw := append(append([]string(nil), old[:5000]...), old[5400:]...)
	for i := 0; i < 10; i++ {
		nw[1000+i*1500] = "\t(changed)"
	}
	b.ResetTimer()
	for range b.N {
		diffLines("f", old, nw)
	}
}
