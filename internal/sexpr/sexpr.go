package sexpr

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Kind says what a Node holds.
type Kind uint8

const (
	List   Kind = iota // a parenthesised list
	Atom               // an unquoted token: a keyword, number or bare value
	String             // a double-quoted string; Value holds it unescaped
)

func (k Kind) String() string {
	switch k {
	case List:
		return "list"
	case Atom:
		return "atom"
	case String:
		return "string"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Node is one expression with the half-open byte span [Start, End) it occupies
// in the source. For a List the span runs from '(' through ')'; for a String it
// includes the quotes.
type Node struct {
	Kind     Kind
	Start    int
	End      int
	Value    string // Atom: the token; String: the decoded text; List: ""
	Children []Node
}

// maxDepth bounds nesting. Real KiCad files nest about 15 deep; the bound only
// stops pathological input from building an enormous parse stack.
const maxDepth = 10000

// SyntaxError locates a parse failure. Line and Col are 1-based; Col counts bytes.
type SyntaxError struct {
	File   string
	Line   int
	Col    int
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	name := e.File
	if name == "" {
		name = "<input>"
	}
	return fmt.Sprintf("%s:%d:%d: %s", name, e.Line, e.Col, e.Msg)
}

// ParseFile reads and parses one file.
func ParseFile(path string) (*Node, []byte, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	n, err := Parse(path, src)
	if err != nil {
		return nil, nil, err
	}
	return n, src, nil
}

// Parse parses src as one top-level list (the shape of every KiCad file);
// anything but white space after that list is a *SyntaxError. name is used
// only in error messages.
func Parse(name string, src []byte) (*Node, error) {
	p := parser{name: name, s: string(src)}
	return p.parse()
}

type parser struct {
	name string
	s    string
	pos  int
}

func (p *parser) errAt(off int, format string, args ...any) *SyntaxError {
	line, col := LineCol([]byte(p.s[:min(off, len(p.s))]), off)
	return &SyntaxError{File: p.name, Line: line, Col: col, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// LineCol converts a byte offset into 1-based line and column numbers.
func LineCol(src []byte, off int) (line, col int) {
	if off > len(src) {
		off = len(src)
	}
	line, col = 1, 1
	last := -1
	for i := 0; i < off; i++ {
		if src[i] == '\n' {
			line++
			last = i
		}
	}
	col = off - last
	return line, col
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func (p *parser) skipSpace() {
	for p.pos < len(p.s) && isSpace(p.s[p.pos]) {
		p.pos++
	}
}

func (p *parser) parse() (*Node, error) {
	p.skipSpace()
	if p.pos >= len(p.s) {
		return nil, p.errAt(p.pos, "empty file: expected '('")
	}
	if p.s[p.pos] != '(' {
		return nil, p.errAt(p.pos, "expected '(' at start of file, found %s", describe(p.s[p.pos]))
	}
	// An explicit stack instead of recursion: no input can overflow the
	// goroutine stack. Finished children wait in scratch until their list
	// closes, then move into an exact-size slice carved from a slab, so a
	// 69 MB board costs a few large allocations instead of millions of
	// growing ones.
	type open struct{ start, first int }
	opens := make([]open, 0, 32)
	scratch := make([]Node, 0, 1024)
	var slab []Node
	// A node takes at least two bytes of source, so small inputs get a slab
	// sized to them rather than a full one.
	slabSize := min(slabNodes, len(p.s)/2+1)
	take := func(n int) []Node {
		if n == 0 {
			return nil
		}
		if n > len(slab) {
			slab = make([]Node, max(n, slabSize))
		}
		out := slab[:n:n]
		slab = slab[n:]
		return out
	}
	opens = append(opens, open{start: p.pos, first: 0})
	p.pos++
	for {
		p.skipSpace()
		if p.pos >= len(p.s) {
			line, col := LineCol([]byte(p.s), opens[len(opens)-1].start)
			return nil, p.errAt(p.pos, "unexpected end of file: list opened at %d:%d is not closed", line, col)
		}
		switch c := p.s[p.pos]; c {
		case '(':
			if len(opens) >= maxDepth {
				return nil, p.errAt(p.pos, "nesting deeper than %d levels", maxDepth)
			}
			opens = append(opens, open{start: p.pos, first: len(scratch)})
			p.pos++
		case ')':
			p.pos++
			o := opens[len(opens)-1]
			opens = opens[:len(opens)-1]
			kids := take(len(scratch) - o.first)
			copy(kids, scratch[o.first:])
			clear(scratch[o.first:]) // drop references so the GC can free decoded strings
			scratch = scratch[:o.first]
			if len(opens) == 0 {
				end := p.pos
				if err := p.trailing(o.start); err != nil {
					return nil, err
				}
				return &Node{Kind: List, Start: o.start, End: end, Children: kids}, nil
			}
			scratch = append(scratch, Node{Kind: List, Start: o.start, End: p.pos, Children: kids})
		case '"':
			n, err := p.str()
			if err != nil {
				return nil, err
			}
			scratch = append(scratch, n)
		default:
			start := p.pos
			for p.pos < len(p.s) {
				c := p.s[p.pos]
				if isSpace(c) || c == '(' || c == ')' || c == '"' {
					break
				}
				p.pos++
			}
			scratch = append(scratch, Node{Kind: Atom, Start: start, End: p.pos, Value: p.s[start:p.pos]})
		}
	}
}

// trailing refuses anything but white space after the top-level list that
// opened at start and closed just before p.pos. Ignoring it would read half
// a file as if it were whole: one stray ')' inside a schematic closes the
// top-level list early, and everything after it (sheets, symbols, a board's
// footprints) would silently vanish from the design. KiCad's own loader
// copes with some such files (it accepts a missing '(' before a keyword, as
// in the royalblue54L_feather demo board's "(curved_edges no)filter_ratio
// 0.9)"), but a lossless reader cannot guess where the missing '(' was, so
// the file is refused with the place where its structure ends early.
func (p *parser) trailing(start int) error {
	end := p.pos
	p.skipSpace()
	if p.pos >= len(p.s) {
		return nil
	}
	sl, sc := LineCol([]byte(p.s), start)
	el, ec := LineCol([]byte(p.s), end-1)
	what := "content"
	if p.s[p.pos] == ')' {
		what = "an unmatched ')'"
	}
	return p.errAt(p.pos, "%s after the end of the file's top-level list (opened at %d:%d, closed at %d:%d): an extra ')' before that point closes it early, or the file was damaged", what, sl, sc, el, ec)
}

// slabNodes is how many nodes one slab allocation holds: large enough that a
// 69 MB board needs a few hundred allocations, small enough (about 4 MB) that
// parsing a tiny file does not reserve much.
const slabNodes = 1 << 16

func describe(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// str reads a quoted string starting at p.pos.
func (p *parser) str() (Node, error) {
	start := p.pos
	p.pos++ // opening quote
	plain := true
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case '"':
			p.pos++
			raw := p.s[start+1 : p.pos-1]
			v := raw
			if !plain {
				v = unescape(raw)
			}
			return Node{Kind: String, Start: start, End: p.pos, Value: v}, nil
		case '\\':
			plain = false
			p.pos += 2 // an escape never ends the string
			continue
		}
		p.pos++
	}
	return Node{}, p.errAt(start, "unterminated string")
}

// unescape decodes the escapes KiCad's lexer understands. An unknown escape
// keeps its backslash, as KiCad does.
func unescape(raw string) string {
	var b strings.Builder
	b.Grow(len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' || i+1 >= len(raw) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := raw[i]; e {
		case '"', '\\':
			b.WriteByte(e)
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case 'x':
			j := i + 1
			for j < len(raw) && j < i+3 && isHex(raw[j]) {
				j++
			}
			if j == i+1 {
				b.WriteString(`\x`)
				continue
			}
			v, _ := strconv.ParseUint(raw[i+1:j], 16, 8)
			b.WriteByte(byte(v))
			i = j - 1
		default:
			if e >= '0' && e <= '7' {
				j := i
				for j < len(raw) && j < i+3 && raw[j] >= '0' && raw[j] <= '7' {
					j++
				}
				v, _ := strconv.ParseUint(raw[i:j], 8, 16)
				b.WriteByte(byte(v))
				i = j - 1
				continue
			}
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// Quote renders s as a KiCad string literal, escaping what KiCad's writer escapes.
func Quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
