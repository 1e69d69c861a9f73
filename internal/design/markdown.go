package design

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// markdown is the one Markdown reader for design docs: CommonMark plus GFM
// tables and nothing else, so that what a human sees rendered on GitHub is what
// the drift check reads. Strikethrough, autolinks and the typographer are off
// on purpose: they would rewrite cell text ("--" to an en dash, "~x~").
var markdown = goldmark.New(goldmark.WithExtensions(extension.Table))

func parseMarkdown(src []byte) ast.Node {
	return markdown.Parser().Parse(text.NewReader(src))
}

// Table is one GFM table read from a Markdown doc, every cell as plain text
// (see cellText). Rows have exactly len(Header) cells.
type Table struct {
	Header []string
	Rows   [][]string
}

// ParseTables returns every GFM table in doc, in document order, including
// tables nested in lists or block quotes. It never fails: text that is not a
// table is simply not returned.
func ParseTables(doc []byte) []Table {
	root := parseMarkdown(doc)
	var tables []Table
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		t, ok := n.(*extast.Table)
		if !ok {
			return ast.WalkContinue, nil
		}
		tables = append(tables, readTable(t, doc))
		return ast.WalkSkipChildren, nil
	})
	return tables
}

func readTable(t *extast.Table, src []byte) Table {
	var out Table
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		var cells []string
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, cellText(c, src))
		}
		if _, ok := r.(*extast.TableHeader); ok {
			out.Header = cells
			continue
		}
		out.Rows = append(out.Rows, cells)
	}
	for i, row := range out.Rows {
		switch {
		case len(row) < len(out.Header):
			out.Rows[i] = append(row, make([]string, len(out.Header)-len(row))...)
		case len(row) > len(out.Header):
			out.Rows[i] = row[:len(out.Header)]
		}
	}
	return out
}

// cellText is the plain text of a table cell (or any inline container):
// emphasis, links and code-span backticks are dropped, backslash escapes and
// entities are resolved, runs of whitespace become one space. "**10k**",
// "`10k`" and " 10k " all read as "10k".
func cellText(n ast.Node, src []byte) string {
	var b bytes.Buffer
	writePlain(&b, n, src, false)
	return normalizeSpace(b.String())
}

func writePlain(b *bytes.Buffer, n ast.Node, src []byte, code bool) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			v := c.Segment.Value(src)
			if code || c.IsRaw() {
				b.Write(v)
			} else {
				b.Write(unescapeInline(v))
			}
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.CodeSpan:
			writePlain(b, c, src, true)
		case *ast.AutoLink:
			b.Write(c.Label(src))
		case *ast.RawHTML:
			for i := range c.Segments.Len() {
				seg := c.Segments.At(i)
				b.Write(seg.Value(src))
			}
		default:
			writePlain(b, c, src, code)
		}
	}
}

// unescapeInline resolves CommonMark backslash escapes and character
// references in one left-to-right pass, so "\&amp;" stays the literal text
// "&amp;" as CommonMark requires.
func unescapeInline(v []byte) []byte {
	out := make([]byte, 0, len(v))
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' && i+1 < len(v) && util.IsPunct(v[i+1]) {
			out = append(out, v[i+1])
			i++
			continue
		}
		if c == '&' {
			if end := bytes.IndexByte(v[i:min(len(v), i+40)], ';'); end > 0 {
				ref := v[i : i+end+1]
				resolved := util.ResolveNumericReferences(util.ResolveEntityNames(ref))
				if !bytes.Equal(resolved, ref) {
					out = append(out, resolved...)
					i += end
					continue
				}
			}
		}
		out = append(out, c)
	}
	return out
}

func normalizeSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// escapeCell renders s as table-cell Markdown that cellText reads back as
// normalizeSpace(s). Pipes are always escaped; anything else only when the
// text would not survive as written: first the characters with inline meaning
// (emphasis, code, links, HTML, entities), and as a last resort every ASCII
// punctuation character, which CommonMark guarantees is literal. Readable
// footprints like "Resistor_SMD:R_0603_1608Metric" therefore stay unescaped.
func escapeCell(s string) string {
	s = normalizeSpace(s)
	minimal := strings.ReplaceAll(s, "|", `\|`)
	if readsBackAs(minimal, s) {
		return minimal
	}
	inline := backslashEscape(s, func(c byte) bool { return strings.IndexByte("\\`*_[]<>&|!", c) >= 0 })
	if readsBackAs(inline, s) {
		return inline
	}
	return backslashEscape(s, util.IsPunct)
}

func backslashEscape(s string, escape func(byte) bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if escape(s[i]) {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func readsBackAs(cell, want string) bool {
	tables := ParseTables([]byte("| x |\n| --- |\n| " + cell + " |\n"))
	return len(tables) == 1 && len(tables[0].Rows) == 1 && tables[0].Rows[0][0] == want
}

// ContentHash fingerprints what a doc says rather than how its bytes are laid
// out: block structure, heading levels, normalised text and table cells.
// Re-padding table columns, changing the delimiter row, reflowing a paragraph
// or switching list bullets keeps the hash; changing a value, adding a row or
// editing a sentence changes it. init records these hashes in config.json
// "generated" to tell its own output apart from hand edits.
func ContentHash(doc []byte) string {
	root := parseMarkdown(doc)
	var b bytes.Buffer
	canonicalBlocks(&b, root, doc)
	sum := sha256.Sum256(b.Bytes())
	return "sha256:" + hex.EncodeToString(sum[:])
}

// canonicalBlocks writes one line per block: a kind tag, then its normalised
// text. Container blocks open and close with their own tags so that moving a
// paragraph into or out of a list is a change.
func canonicalBlocks(b *bytes.Buffer, n ast.Node, src []byte) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Heading:
			b.WriteString("H")
			b.WriteByte(byte('0' + c.Level))
			b.WriteString(" " + cellText(c, src) + "\n")
		case *ast.Paragraph, *ast.TextBlock:
			b.WriteString("P " + cellText(c, src) + "\n")
		case *extast.Table:
			t := readTable(c, src)
			b.WriteString("T " + strings.Join(t.Header, "\x1f") + "\n")
			for _, row := range t.Rows {
				b.WriteString("R " + strings.Join(row, "\x1f") + "\n")
			}
		case *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock:
			b.WriteString("C " + normalizeSpace(string(c.Lines().Value(src))))
			if h, ok := c.(*ast.HTMLBlock); ok && h.HasClosure() {
				b.WriteString(" " + normalizeSpace(string(h.ClosureLine.Value(src))))
			}
			b.WriteString("\n")
		case *ast.ThematicBreak:
			b.WriteString("HR\n")
		default:
			b.WriteString("<" + c.Kind().String() + "\n")
			canonicalBlocks(b, c, src)
			b.WriteString(">\n")
		}
	}
}
