package doctext

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

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
			got := HTML(tt.in)
			if got.Text != tt.text || got.Title != tt.title || got.Published != tt.pd {
				t.Errorf("HTML(%q) = %q / %q / %q, want %q / %q / %q", tt.in, got.Text, got.Title, got.Published, tt.text, tt.title, tt.pd)
			}
		})
	}
}

func TestExtractFormats(t *testing.T) {
	ctx := context.Background()
	md, err := Extract(ctx, []byte("---\ntitle: Guide\ndate: 2025-06-01\n---\n# Heading\r\nbody\x00"), "", "guide.md")
	if err != nil || md.Title != "Guide" || md.Published != "2025-06-01" || strings.ContainsAny(md.Text, "\r\x00") {
		t.Errorf("markdown: %+v %v", md, err)
	}
	txt, err := Extract(ctx, []byte("\n  First line  \nrest"), "text/plain", "notes.txt")
	if err != nil || txt.Title != "First line" || txt.Kind != KindText {
		t.Errorf("text: %+v %v", txt, err)
	}
	if _, err := Extract(ctx, []byte{0x89, 'P', 'N', 'G'}, "image/png", "x.png"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("png: %v", err)
	}
	if _, err := Extract(ctx, []byte("not a pdf"), "application/pdf", "x.pdf"); err == nil {
		t.Error("a non-PDF was extracted as PDF")
	}
}

// MinimalPDF builds a one-page PDF showing lines of text in Helvetica, with
// a correct cross-reference table, for tests that need pdftotext to read a
// real file.
func MinimalPDF(lines ...string) []byte {
	var content strings.Builder
	content.WriteString("BT /F1 12 Tf 72 720 Td 14 TL\n")
	for _, l := range lines {
		l = strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(l)
		fmt.Fprintf(&content, "(%s) Tj T*\n", l)
	}
	content.WriteString("ET")
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", content.Len(), content.String()),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	var b strings.Builder
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return []byte(b.String())
}

func TestPDF(t *testing.T) {
	if _, err := os.Stat("/usr/bin/pdftotext"); err != nil {
		t.Skip("pdftotext (poppler-utils) not installed")
	}
	d, err := Extract(context.Background(), MinimalPDF("Reflow profile notes", "The peak temperature is 245 C."), "application/pdf", "notes.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Text, "The peak temperature is 245 C.") || d.Title != "Reflow profile notes" || !strings.HasPrefix(d.Extractor, "pdftotext -layout ") {
		t.Errorf("pdf: %+v", d)
	}
	old := PDFToText
	PDFToText = "pdftotext-that-does-not-exist"
	defer func() { PDFToText = old }()
	if _, err := Extract(context.Background(), MinimalPDF("x"), "application/pdf", "x.pdf"); !errors.Is(err, ErrNoPDFToText) {
		t.Errorf("missing pdftotext: %v", err)
	}
}

// FuzzHTML: the converter never panics, and its text is valid UTF-8 with no
// control characters but newline and tab, no trailing spaces on a line, and
// never more than one blank line in a row.
func FuzzHTML(f *testing.F) {
	for _, s := range []string{"<p>a</p>", "<pre>x\n y</pre>", "<a href='x>'>y</a>", "<!--", "<script>", "a&amp;b<br/>c", "<title>t</title>", "\xff<p>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		r := HTML(in)
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
