package doctext

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

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
