package textfmt

import "testing"

// TestShapers is one table over every function: each row is a call, what it
// returned and what it must return.
func TestShapers(t *testing.T) {
	for _, tt := range []struct{ call, got, want string }{
		{`OneLine("")`, OneLine(""), ""},
		{`OneLine("one line")`, OneLine("one line"), "one line"},
		{`OneLine("  padded  ")`, OneLine("  padded  "), "padded"},
		{`OneLine(git stderr)`, OneLine("git: fatal\n  bad ref\n\n"), "git: fatal bad ref"},
		{`OneLine(tabs, CRLF)`, OneLine("tabs\tand\r\nCRLF"), "tabs and CRLF"},
		{`OneLine(no-break spaces)`, OneLine("\u00a0no-break\u00a0space"), "no-break space"},

		{`JoinLines(git stderr, "; ")`, JoinLines("fatal: bad\r\n\n  hint: retry  \n", "; "), "fatal: bad; hint: retry"},
		{`JoinLines(blank, "; ")`, JoinLines(" \n\t\n", "; "), ""},
		{`JoinLines(one line, "; ")`, JoinLines("one  line", "; "), "one  line"},

		{`Clip("short", 10)`, Clip("short", 10), "short"},
		{`Clip("exactly", 7)`, Clip("exactly", 7), "exactly"},
		{`Clip("one too long", 11)`, Clip("one too long", 11), "one too lo…"},
		{`Clip(runes, 6)`, Clip("Ωmega µA sleep", 6), "Ωmega…"},
		{`Clip("ab cdef", 4)`, Clip("ab cdef", 4), "ab …"}, // a space before the mark is kept
		{`Clip("x", 0)`, Clip("x", 0), "…"},

		{`ClipBytes("short", 10)`, ClipBytes("short", 10), "short"},
		{`ClipBytes("abcdef", 3)`, ClipBytes("abcdef", 3), "abc…"},
		{`ClipBytes(µ split, 3)`, ClipBytes("ab\u00b5A", 3), "ab…"}, // µ is two bytes
		{`ClipBytes(µµ, 3)`, ClipBytes("\u00b5\u00b5", 3), "\u00b5…"},
		{`ClipBytes(invalid, 4)`, ClipBytes("a\xffbcdef", 4), "abc…"}, // invalid bytes before the cut go too

		{`CutBytes("exactly", 7)`, CutBytes("exactly", 7), "exactly"},
		{`CutBytes("abcdef", 3)`, CutBytes("abcdef", 3), "abc"},
		{`CutBytes(µ split, 3)`, CutBytes("ab\u00b5A", 3), "ab"},
		{`CutBytes(€ split, 5)`, CutBytes("\u20ac\u20ac", 5), "\u20ac"}, // € is three bytes
		{`CutBytes(invalid, 4)`, CutBytes("a\xffbcdef", 4), "a"},        // shortened until valid

		{`Count(1, "mismatch")`, Count(1, "mismatch"), "1 mismatch"},
		{`Count(2, "mismatch")`, Count(2, "mismatch"), "2 mismatches"},
		{`Count(0, "error")`, Count(0, "error"), "0 errors"},
		{`Count(3, "failure")`, Count(3, "failure"), "3 failures"},
		{`Count(2, "parity issue")`, Count(2, "parity issue"), "2 parity issues"},
		{`Count(4, "box")`, Count(4, "box"), "4 boxes"},
		{`Count(2, "flash")`, Count(2, "flash"), "2 flashes"},
		{`Count(1, "named net")`, Count(1, "named net"), "1 named net"},
		{`Count(-1, "net")`, Count(-1, "net"), "-1 nets"},

		{`CountForms(1, "entry", "entries")`, CountForms(1, "entry", "entries"), "1 entry"},
		{`CountForms(0, "entry", "entries")`, CountForms(0, "entry", "entries"), "0 entries"},
		{`CountForms(3, "claim was", "claims were")`, CountForms(3, "claim was", "claims were"), "3 claims were"},
		{`Noun(1, "its", "their")`, Noun(1, "its", "their"), "its"},
		{`Noun(2, "its", "their")`, Noun(2, "its", "their"), "their"},
	} {
		if tt.got != tt.want {
			t.Errorf("%s = %q, want %q", tt.call, tt.got, tt.want)
		}
	}
}
