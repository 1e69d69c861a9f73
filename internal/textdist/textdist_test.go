package textdist

import (
	"slices"
	"testing"
)

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

func TestClosest(t *testing.T) {
	names := []string{"Device", "Connector", "power", "Regulator_Linear", "MCU_Microchip_ATmega"}
	cases := []struct {
		want string
		n    int
		out  []string
	}{
		{"Devise", 1, []string{"Device"}},
		{"regulator", 1, []string{"Regulator_Linear"}}, // contained, case-insensitive
		{"Power", 1, []string{"power"}},
		{"x", 0, []string{}},
	}
	for _, c := range cases {
		if got := Closest(c.want, names, c.n); !slices.Equal(got, c.out) {
			t.Errorf("Closest(%q, %d) = %v, want %v", c.want, c.n, got, c.out)
		}
	}
}
