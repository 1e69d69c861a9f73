package htmltext

import "testing"

func TestHTML(t *testing.T) {
	tests := []struct {
		name, in        string
		text, title, pd string
	}{
		{"paragraphs and entities", `<html><head><title> A &amp; B </title></head><body><p>One&nbsp;two &lt;three&gt;.</p><p>Four</p></body></html>`,
			"One two <three>.\n\nFour\n", "A & B", ""},
		{"scripts styles comments dropped", `<p>keep</p><script>var x = "<p>drop</p>";</script><style>p{}</style><!-- <p>gone</p> --><p>also</p>`,
			"keep\n\nalso\n", "", ""},
		{"lists and breaks", `<ul><li>a</li><li>b<br>c</li></ul>`, "a\nb\nc\n", "", ""},
		{"pre keeps spaces", "<pre>x  =  1\n  y</pre>", "x  =  1\n  y\n", "", ""},
		{"table cells spaced", `<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>`, "a b\nc\n", "", ""},
		{"meta date", `<meta property="article:published_time" content="2024-03-01T10:00:00Z"><p>x</p>`, "x\n", "", "2024-03-01"},
		{"stray angle bracket", `<p>a < b and c>d</p>`, "a < b and c>d\n", "", ""},
		{"unclosed comment", `<p>a</p><!-- never closed`, "a\n", "", ""},
		{"attribute with >", `<p title="x>y">text</p>`, "text\n", "", ""},
		{"invalid utf8", "<p>a\xffb</p>", "a\uFFFDb\n", "", ""},
		{"empty", "", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Convert(tt.in)
			if got.Text != tt.text || got.Title != tt.title || got.Published != tt.pd {
				t.Errorf("Convert(%q) = %q / %q / %q, want %q / %q / %q", tt.in, got.Text, got.Title, got.Published, tt.text, tt.title, tt.pd)
			}
		})
	}
}

func TestParseDate(t *testing.T) {
	dates := [][2]string{ // input, want
		{"2024-03-01", "2024-03-01"},
		{" 2024-03-01T10:00:00Z", "2024-03-01"},
		{"2024-02-30", ""}, {"March 1, 2024", ""}, {"2024-3-1", ""}, {"", ""},
	}
	for _, d := range dates {
		if got := ParseDate(d[0]); got != d[1] {
			t.Errorf("ParseDate(%q) = %q, want %q", d[0], got, d[1])
		}
	}
}
