package textdist

import "testing"

func TestLevenshtein(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "KEY", 3},
		{"KEY_DAH", "KEY_DAH", 0},
		{"KEY_DAH", "KEY_DASH", 1},
		{"KEY_DAH", "KEY_DIT", 2},
		{"R7", "R17", 1},
		{"kitten", "sitting", 3},
		{"µF", "uF", 1}, // runes, not bytes
	}
	for _, tc := range tests {
		if got := Levenshtein(tc.a, tc.b); got != tc.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := Levenshtein(tc.b, tc.a); got != tc.want {
			t.Errorf("not symmetric for %q, %q", tc.a, tc.b)
		}
	}
}
