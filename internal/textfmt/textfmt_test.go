package textfmt

import "testing"

func TestOneLine(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"one line", "one line"},
		{"  padded  ", "padded"},
		{"git: fatal\n  bad ref\n\n", "git: fatal bad ref"},
		{"tabs\tand\r\nCRLF", "tabs and CRLF"},
		{"\u00a0no-break\u00a0space", "no-break space"},
	} {
		if got := OneLine(tt.in); got != tt.want {
			t.Errorf("OneLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestClip(t *testing.T) {
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"one too long", 11, "one too lo…"},
		{"Ωmega µA sleep", 6, "Ωmega…"},
		{"ab cdef", 4, "ab …"},
		{"x", 0, "…"},
	} {
		if got := Clip(tt.in, tt.n); got != tt.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestClipBytes(t *testing.T) {
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"abcdef", 3, "abc…"},
		{"ab\u00b5A", 3, "ab…"},   // µ is two bytes: the cut would split it
		{"a\xffbcdef", 4, "abc…"}, // invalid input bytes before the cut are dropped too
		{"\u00b5\u00b5", 3, "\u00b5…"},
	} {
		if got := ClipBytes(tt.in, tt.n); got != tt.want {
			t.Errorf("ClipBytes(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestCutBytes(t *testing.T) {
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"abcdef", 3, "abc"},
		{"ab\u00b5A", 3, "ab"},
		{"\u20ac\u20ac", 5, "\u20ac"}, // € is three bytes
		{"a\xffbcdef", 4, "a"},        // shortened until what is left is valid
	} {
		if got := CutBytes(tt.in, tt.n); got != tt.want {
			t.Errorf("CutBytes(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestCount(t *testing.T) {
	for _, tt := range []struct {
		n          int
		noun, want string
	}{
		{1, "mismatch", "1 mismatch"},
		{2, "mismatch", "2 mismatches"},
		{0, "error", "0 errors"},
		{3, "failure", "3 failures"},
		{2, "parity issue", "2 parity issues"},
		{4, "box", "4 boxes"},
		{2, "flash", "2 flashes"},
		{1, "named net", "1 named net"},
		{-1, "net", "-1 nets"},
	} {
		if got := Count(tt.n, tt.noun); got != tt.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tt.n, tt.noun, got, tt.want)
		}
	}
}

func TestCountFormsAndNoun(t *testing.T) {
	for _, tt := range []struct {
		n                   int
		one, many           string
		wantCount, wantNoun string
	}{
		{1, "entry", "entries", "1 entry", "entry"},
		{0, "entry", "entries", "0 entries", "entries"},
		{3, "claim was", "claims were", "3 claims were", "claims were"},
		{1, "its", "their", "1 its", "its"},
	} {
		if got := CountForms(tt.n, tt.one, tt.many); got != tt.wantCount {
			t.Errorf("CountForms(%d, %q, %q) = %q, want %q", tt.n, tt.one, tt.many, got, tt.wantCount)
		}
		if got := Noun(tt.n, tt.one, tt.many); got != tt.wantNoun {
			t.Errorf("Noun(%d, %q, %q) = %q, want %q", tt.n, tt.one, tt.many, got, tt.wantNoun)
		}
	}
}
