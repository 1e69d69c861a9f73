package htmltext

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzConvert: the converter never panics, and its text is valid UTF-8 with no
// control characters but newline and tab, no trailing spaces on a line, and
// never more than one blank line in a row.
func FuzzConvert(f *testing.F) {
	for _, s := range []string{"<p>a</p>", "<pre>x\n y</pre>", "<a href='x>'>y</a>", "<!--", "<script>", "a&amp;b<br/>c", "<title>t</title>", "\xff<p>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		r := Convert(in)
		if !utf8.ValidString(r.Text) || !utf8.ValidString(r.Title) {
			t.Fatal("invalid UTF-8")
		}
		for _, c := range r.Text {
			if unicode.IsControl(c) && c != '\n' && c != '\t' {
				t.Fatalf("control character %U in %q", c, r.Text)
			}
		}
		for _, line := range strings.Split(r.Text, "\n") {
			if strings.HasSuffix(line, " ") {
				t.Fatalf("trailing space in %q", r.Text)
			}
		}
		if strings.Contains(r.Text, "\n\n\n") {
			t.Fatalf("two blank lines in %q", r.Text)
		}
	})
}
