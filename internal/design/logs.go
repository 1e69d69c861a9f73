package design

import (
	"bytes"
	"slices"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/util"
)

// The two history docs (design D12, D13). Both are only ever added to:
// AddChangelog inserts above the previous entries and AppendDecisions below
// them, and neither rewrites a byte that is already there. Every field is
// escaped so that a request or a decision reads back as the literal text it
// was: "## x" or "<script>" in a request cannot become a heading, a link or
// HTML in the log.

// logProject titles a log that AddChangelog or AppendDecisions has to create
// from nothing; init normally scaffolds both with the project's name.
const logProject = "Design"

// Placeholders for empty fields, so every entry has the same shape.
const (
	noneRecorded = "not recorded"
	noneListed   = "none"
	noID         = "—"
)

// ChangelogEntry is one committed run in docs/CHANGELOG.md.
type ChangelogEntry struct {
	Date         string   // YYYY-MM-DD
	ChangeID     string   // OpenSpec change id
	RunID        string   // copperhead run id
	Request      string   // the user's request, as typed
	Files        []string // repo-relative paths the run touched
	Verification string   // e.g. "ERC ✓ DRC ✓ drift ✓"
}

// DecisionEntry is one non-trivial decision in docs/DECISIONS.md.
type DecisionEntry struct {
	Date      string   // YYYY-MM-DD
	RunID     string   // copperhead run id
	Decision  string   // what was decided
	Rationale string   // the one-line why
	Affects   []string // refdes, nets, docs
}

// AddChangelog returns doc with e inserted newest first: directly above the
// first entry (the first top-level "## " heading), or after the header when
// there is none yet. An empty doc gets the header GenerateChangelog writes.
// Files are listed sorted and without duplicates.
//
//	## <date> · <change id> · <request>
//	- Files: <files>
//	- Verification: <verification>
//	- Run: <run id>
func AddChangelog(doc []byte, e ChangelogEntry) []byte {
	if len(bytes.TrimSpace(doc)) == 0 {
		doc = GenerateChangelog(logProject)
	}
	files := slices.Compact(slices.Sorted(slices.Values(e.Files)))
	var b strings.Builder
	b.WriteString(logHeading(e.Date, e.ChangeID, e.Request))
	b.WriteString("- Files: " + logList(files) + "\n")
	b.WriteString("- Verification: " + logText(e.Verification, noneRecorded) + "\n")
	b.WriteString("- Run: " + logText(e.RunID, noID) + "\n")
	entry := b.String()

	at := firstEntry(doc)
	if at < 0 {
		return slices.Concat(doc, []byte(blankLineAfter(doc)+entry))
	}
	return slices.Concat(doc[:at], []byte(blankLineAfter(doc[:at])+entry+"\n"), doc[at:])
}

// AppendDecisions returns doc with entries appended in order after
// everything already there; existing bytes are never changed. An empty doc
// gets the header GenerateDecisions writes. Affects keeps the given order.
//
//	## <date> · <run id> · <decision>
//	- Why: <rationale>
//	- Affects: <affects>
func AppendDecisions(doc []byte, entries []DecisionEntry) []byte {
	if len(bytes.TrimSpace(doc)) == 0 {
		doc = GenerateDecisions(logProject)
	}
	out := slices.Clone(doc)
	for _, e := range entries {
		out = append(out, blankLineAfter(out)...)
		out = append(out, logHeading(e.Date, e.RunID, e.Decision)...)
		out = append(out, "- Why: "+logText(e.Rationale, noneRecorded)+"\n"...)
		out = append(out, "- Affects: "+logList(e.Affects)+"\n"...)
	}
	return out
}

// firstEntry is the byte offset of the line holding doc's first top-level
// level-2 heading, or -1. Parsing (rather than scanning for "## ") skips the
// indented entry template in the header and anything in code blocks.
func firstEntry(doc []byte) int {
	for n := parseMarkdown(doc).FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok || h.Level != 2 || h.Lines().Len() == 0 {
			continue
		}
		return bytes.LastIndexByte(doc[:h.Lines().At(0).Start], '\n') + 1
	}
	return -1
}

// blankLineAfter is what to add to doc so the next block starts after a
// blank line.
func blankLineAfter(doc []byte) string {
	switch {
	case len(doc) == 0 || bytes.HasSuffix(doc, []byte("\n\n")):
		return ""
	case bytes.HasSuffix(doc, []byte("\n")):
		return "\n"
	default:
		return "\n\n"
	}
}

func logHeading(date, id, title string) string {
	return "## " + logText(date, noID) + " · " + logText(id, noID) + " · " + logText(title, noneRecorded) + "\n"
}

func logList(items []string) string {
	var out []string
	for _, it := range items {
		if it = logText(it, ""); it != "" {
			out = append(out, it)
		}
	}
	if len(out) == 0 {
		return noneListed
	}
	return strings.Join(out, ", ")
}

// logText renders s as one line of inline Markdown that reads back as the
// text of s with whitespace runs (newlines included) collapsed, or empty when
// s is blank. Like escapeCell it escapes only what would not survive as
// written, so "hardware/keyer.kicad_sch" stays readable; a trailing "#" is
// always escaped, since at the end of a heading it would close it.
func logText(s, empty string) string {
	s = normalizeSpace(s)
	if s == "" {
		return empty
	}
	out := backslashEscape(s, util.IsPunct)
	for i, c := range []string{s, backslashEscape(s, func(c byte) bool { return strings.IndexByte("\\`*_[]<>&!~", c) >= 0 })} {
		// GitHub renders "~~x~~" struck through; our reader does not.
		if i == 0 && strings.Contains(s, "~") {
			continue
		}
		if readsBackInline(c, s) {
			out = c
			break
		}
	}
	if trimmed := strings.TrimRight(out, "#"); len(trimmed) < len(out) && !strings.HasSuffix(trimmed, `\`) {
		out = trimmed + `\` + out[len(trimmed):]
	}
	return out
}

// readsBackInline reports whether md, in the middle of a line of prose, reads
// back as the plain text want and nothing else: one paragraph, no heading,
// no list, no HTML block.
func readsBackInline(md, want string) bool {
	src := []byte("x " + md + " x\n")
	root := parseMarkdown(src)
	p, ok := root.FirstChild().(*ast.Paragraph)
	if !ok || p.NextSibling() != nil {
		return false
	}
	for c := p.FirstChild(); c != nil; c = c.NextSibling() {
		if _, html := c.(*ast.RawHTML); html {
			return false
		}
		if _, link := c.(*ast.Link); link {
			return false
		}
	}
	return cellText(p, src) == "x "+want+" x"
}
