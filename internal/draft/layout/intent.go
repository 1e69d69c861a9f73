package layout

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

// DraftQualityHeading is the LAYOUT.md section this engine rewrites with its
// honesty report (spec §2.5). It must equal design.DraftQualityHeading, the
// heading init scaffolds; TestHeadingMatchesDesign holds the two together
// (this package sits below design and does not import it).
const DraftQualityHeading = "Draft quality"

// draftQualityPlaceholder is the body init writes under the heading before
// any draft exists (design.DraftQualityPlaceholder): the section still
// holding it means no draft has been assessed.
const draftQualityPlaceholder = "Not assessed: no layout draft has been made yet."

// Intent is what LAYOUT.md says that the engine acts on.
type Intent struct {
	// Width and Height of the board outline in mm; zero when LAYOUT.md
	// states no size (the engine then computes one from footprint area).
	Width, Height float64
	// Source is the LAYOUT.md line the size was read from.
	Source string
}

// Limits on a stated board size: below minBoardMM nothing fits, and above
// maxBoardMM (a Eurocard is 160 mm, a 19" rack card 233 mm) the number is
// more likely a typo than a board.
const (
	minBoardMM = 5
	maxBoardMM = 1000
)

// sizeRE finds "40 x 25 mm", "40x25mm", "40 mm x 25 mm", "40 × 25 mm".
var sizeRE = regexp.MustCompile(`(?i)(\d+(?:\.\d+)?)\s*(?:mm)?\s*[x×\*]\s*(\d+(?:\.\d+)?)\s*mm\b`)

// boardWordRE says a line talks about the board outline, not a part.
var boardWordRE = regexp.MustCompile(`(?i)\b(board|outline|pcb|size|dimensions?)\b`)

// ParseIntent reads the board outline size from LAYOUT.md: the first line,
// outside the Draft quality section and not a TODO, that names a size
// ("Board: 40 x 25 mm") either in the "Board outline" section or next to a
// word such as board, outline or size. The Draft quality section is skipped
// because the engine writes it: reading it back would let one draft's
// computed size pose as the next draft's stated intent.
func ParseIntent(md []byte) Intent {
	section := ""
	for line := range strings.Lines(string(md)) {
		line = strings.TrimSpace(line)
		if h, ok := heading(line); ok {
			section = h
			continue
		}
		if strings.EqualFold(section, DraftQualityHeading) || strings.Contains(line, "TODO") {
			continue
		}
		m := sizeRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if !strings.Contains(strings.ToLower(section), "outline") && !boardWordRE.MatchString(line) {
			continue
		}
		w, err1 := strconv.ParseFloat(m[1], 64)
		h, err2 := strconv.ParseFloat(m[2], 64)
		if err1 != nil || err2 != nil || w < minBoardMM || h < minBoardMM || w > maxBoardMM || h > maxBoardMM {
			continue
		}
		return Intent{Width: w, Height: h, Source: line}
	}
	return Intent{}
}

// heading returns the text of a level-2 Markdown heading.
func heading(line string) (string, bool) {
	rest, ok := strings.CutPrefix(unindent(line), "## ")
	if !ok {
		return "", false
	}
	return strings.TrimSpace(strings.TrimRight(rest, "# ")), true
}

// ReplaceSection returns md with the body of its "## <title>" section
// replaced by body, or the section appended when md has none. The section
// runs to the next heading of level 1 or 2; deeper headings belong to it.
// Everything else is kept byte for byte, so rewriting the same body twice
// changes nothing.
func ReplaceSection(md []byte, title, body string) []byte {
	body = strings.TrimRight(body, "\n") + "\n"
	section := "## " + title + "\n\n" + body
	lines := splitLines(md)
	start, end := -1, len(lines)
	for i, l := range lines {
		t := strings.TrimRight(l, "\r\n")
		if start < 0 {
			if h, ok := heading(t); ok && h == title {
				start = i
			}
			continue
		}
		if u := unindent(t); strings.HasPrefix(u, "# ") || strings.HasPrefix(u, "## ") {
			end = i
			break
		}
	}
	var b bytes.Buffer
	if start < 0 {
		b.Write(md)
		if len(md) > 0 {
			if !bytes.HasSuffix(md, []byte("\n")) {
				b.WriteByte('\n')
			}
			if !bytes.HasSuffix(md, []byte("\n\n")) {
				b.WriteByte('\n')
			}
		}
		b.WriteString(section)
		return b.Bytes()
	}
	for _, l := range lines[:start] {
		b.WriteString(l)
	}
	b.WriteString(section)
	if end < len(lines) {
		b.WriteByte('\n')
		for _, l := range lines[end:] {
			b.WriteString(l)
		}
	}
	return b.Bytes()
}

// HasDraftQuality reports whether LAYOUT.md carries an assessed Draft
// quality section: the heading with a body other than init's placeholder.
func HasDraftQuality(md []byte) bool {
	in, body := false, false
	for line := range strings.Lines(string(md)) {
		t := strings.TrimSpace(line)
		if h, ok := heading(strings.TrimRight(line, "\r\n")); ok || strings.HasPrefix(unindent(line), "# ") {
			if in {
				break
			}
			in = ok && h == DraftQualityHeading
			continue
		}
		if in && t != "" {
			if strings.HasPrefix(t, draftQualityPlaceholder) {
				return false
			}
			body = true
		}
	}
	return body
}

// unindent drops the up to three spaces a Markdown heading may be indented
// by (four make a code block, not a heading), so every reader of LAYOUT.md
// here agrees on which lines are headings.
func unindent(line string) string {
	for i := 0; i < 3 && strings.HasPrefix(line, " "); i++ {
		line = line[1:]
	}
	return line
}

func splitLines(b []byte) []string {
	var out []string
	for l := range strings.Lines(string(b)) {
		out = append(out, l)
	}
	return out
}
