package researchtest

import (
	"bytes"
	"fmt"
	"strings"
)

// PDF writes a small, valid PDF 1.4 document that poppler reads: one page
// per element of pages, each line set in Helvetica 12 pt, and an Info
// dictionary with title when it is not empty. Object numbers: 1 catalog,
// 2 page tree, 3 font, 4 info, then a page and its content stream per page.
func PDF(title string, pages [][]string) []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	esc := strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	var kids []string
	for i := range pages {
		kids = append(kids, fmt.Sprintf("%d 0 R", 5+2*i))
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	if title != "" {
		obj(fmt.Sprintf("<< /Title (%s) /Producer (copperhead tests) >>", esc(title)))
	} else {
		obj("<< /Producer (copperhead tests) >>")
	}
	for i, lines := range pages {
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "+
			"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 6+2*i))
		var s strings.Builder
		s.WriteString("BT /F1 12 Tf 72 720 Td 16 TL\n")
		for _, l := range lines {
			fmt.Fprintf(&s, "(%s) Tj T*\n", esc(l))
		}
		s.WriteString("ET")
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", s.Len(), s.String()))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R /Info 4 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}
