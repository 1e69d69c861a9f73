package kicad

import (
	"slices"
	"testing"
)

func TestCompareRefdes(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"R2", "R10", -1},
		{"R10", "R2", 1},
		{"R10", "R10", 0},
		{"C1", "R1", -1},
		{"R1", "RV1", -1},
		{"U2A", "U10A", -1},
		{"U1A", "U1B", -1},
		{"R1", "R1A", -1},
		{"R01", "R1", -1}, // equal numbers: spelling breaks the tie
		{"R1", "R01", 1},
		{"R99999999999999999999", "R100000000000000000000", -1}, // longer than int64
		{"R?", "R1", 1},
		{"", "R1", -1},
		{"#PWR02", "#PWR10", -1},
		{"J1.2", "J1.10", -1},
	} {
		if got := CompareRefdes(tc.a, tc.b); got != tc.want {
			t.Errorf("CompareRefdes(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
	refs := []string{"R10", "U1", "R2", "C10", "R1", "C2", "R100", "R?", "IC3"}
	slices.SortFunc(refs, CompareRefdes)
	want := []string{"C2", "C10", "IC3", "R1", "R2", "R10", "R100", "R?", "U1"}
	if !slices.Equal(refs, want) {
		t.Errorf("sorted %q, want %q", refs, want)
	}
}

// FuzzCompareRefdes checks that the order is a total order, so sorts are
// deterministic: antisymmetric, zero only for equal strings, and transitive.
func FuzzCompareRefdes(f *testing.F) {
	f.Add("R2", "R10", "R01")
	f.Add("U1A", "U1", "U01A")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		ab, ba := CompareRefdes(a, b), CompareRefdes(b, a)
		if ab != -ba {
			t.Fatalf("compare(%q,%q)=%d but compare(%q,%q)=%d", a, b, ab, b, a, ba)
		}
		if (ab == 0) != (a == b) {
			t.Fatalf("compare(%q,%q)=%d", a, b, ab)
		}
		if ab <= 0 && CompareRefdes(b, c) <= 0 && CompareRefdes(a, c) > 0 {
			t.Fatalf("not transitive: %q <= %q <= %q but %q > %q", a, b, c, a, c)
		}
	})
}
