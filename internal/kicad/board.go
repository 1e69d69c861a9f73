package kicad

import (
	"fmt"
	"slices"
	"strings"

	"copperhead/internal/repofs"
	"copperhead/internal/sexpr"
)

// LoadBoard reads the footprints of a .kicad_pcb: reference, value, library
// id, side, position, and the schematic symbol each one was placed from.
// Footprints written by KiCad 8 and later carry (property "Reference" ..);
// earlier ones (fp_text reference ..); KiCad 5's (module ..) is read too.
// Footprints are sorted by reference in natural order, ties in file order.
//
// Errors start with "load board: "; syntax errors wrap the *sexpr.SyntaxError
// (file:line:col: message).
//
// Only the footprints are parsed into nodes. A board is mostly zone fills,
// tracks and embedded 3D models (two thirds of the 69 MB vme-wren demo):
// parsing all of it allocates about 650 MB, skipping over it costs a byte
// scan, and LoadBoard reads that board in about 0.4 s and 310 MB. The scan
// only finds where each top-level list starts and ends; any doubt about the
// file's shape is settled by sexpr.Parse on the whole file, so error
// messages come from one parser.
func LoadBoard(path string) (*Board, error) {
	n, err := parseFootprints(path)
	if err != nil {
		return nil, err
	}
	b := &Board{Path: path, Footprints: make([]Footprint, 0, len(n.Children))}
	for i := range n.Children {
		b.Footprints = append(b.Footprints, readFootprint(&n.Children[i]))
	}
	slices.SortStableFunc(b.Footprints, func(x, y Footprint) int { return CompareRefdes(x.Refdes, y.Refdes) })
	return b, nil
}

// FootprintNode is one board footprint as LoadBoard reads it, with its whole
// node (pads, graphics and all).
type FootprintNode struct {
	Footprint
	Node *sexpr.Node
}

// LoadFootprintNodes reads a .kicad_pcb's footprints the way LoadBoard does
// (and with its errors), keeping each one's node, in file order.
func LoadFootprintNodes(path string) ([]FootprintNode, error) {
	n, err := parseFootprints(path)
	if err != nil {
		return nil, err
	}
	out := make([]FootprintNode, 0, len(n.Children))
	for i := range n.Children {
		out = append(out, FootprintNode{Footprint: readFootprint(&n.Children[i]), Node: &n.Children[i]})
	}
	return out, nil
}

// parseFootprints parses a board's top-level footprints (and KiCad 5
// modules) into the children of one list, in file order.
func parseFootprints(path string) (*sexpr.Node, error) {
	src, err := repofs.ReadRegular(path) // a named pipe would block forever
	if err != nil {
		return nil, fmt.Errorf("load board: %w", err)
	}
	head, spans, ok := skimTopLevel(src, "footprint", "module")
	if !ok {
		return nil, fullParseError(path, src)
	}
	if head != "kicad_pcb" {
		start := 0
		for start < len(src) && isSpaceByte(src[start]) {
			start++
		}
		line, col := sexpr.LineCol(src, start)
		return nil, fmt.Errorf("load board: %s:%d:%d: not a board: it holds (%s ...), want (kicad_pcb ...)", path, line, col, head)
	}
	// One parse of the footprints laid side by side in a single list costs
	// far less than a parse per footprint: sexpr sizes its node slabs by
	// input length.
	size := len("()")
	for _, sp := range spans {
		size += 1 + sp.end - sp.start
	}
	joined := make([]byte, 0, size)
	joined = append(joined, '(')
	for _, sp := range spans {
		joined = append(joined, ' ')
		joined = append(joined, src[sp.start:sp.end]...)
	}
	joined = append(joined, ')')
	n, err := sexpr.Parse(path, joined)
	if err != nil || len(n.Children) != len(spans) {
		return nil, fullParseError(path, src)
	}
	return n, nil
}

// fullParseError parses the whole file to report where and why it is
// malformed, in sexpr's words.
func fullParseError(path string, src []byte) error {
	if _, err := sexpr.Parse(path, src); err != nil {
		return fmt.Errorf("load board: %w", err)
	}
	// The skim and sexpr disagree: a bug in skimTopLevel, not in the file.
	return fmt.Errorf("load board: %s: could not delimit the footprints (please report this file)", path)
}

func readFootprint(n *sexpr.Node) Footprint {
	pos, angle := readAt(n)
	fp := Footprint{
		LibID:      strings.Clone(n.Arg(0)),
		Layer:      strings.Clone(n.Value1("layer")),
		Pos:        pos,
		Rotation:   angle,
		SymbolPath: strings.Clone(n.Value1("path")),
	}
	for c := range n.All("property") {
		switch c.Arg(0) {
		case "Reference":
			fp.Refdes = strings.Clone(c.Arg(1))
		case "Value":
			fp.Value = strings.Clone(c.Arg(1))
		}
	}
	for c := range n.All("fp_text") {
		switch c.Arg(0) {
		case "reference":
			if fp.Refdes == "" {
				fp.Refdes = strings.Clone(c.Arg(1))
			}
		case "value":
			if fp.Value == "" {
				fp.Value = strings.Clone(c.Arg(1))
			}
		}
	}
	if attr := n.Child("attr"); attr != nil {
		fp.DNP = attr.HasAtom("dnp")
		fp.ExcludeFromBOM = attr.HasAtom("exclude_from_bom")
		fp.BoardOnly = attr.HasAtom("board_only")
	}
	return fp
}

// span is the half-open byte range of one top-level list.
type span struct{ start, end int }

// skimTopLevel walks src once, tracking only nesting and string literals by
// the same rules as sexpr (a string runs to the next unescaped quote; a
// backslash always escapes the byte after it), and returns the head of the
// file's first list and the spans of its child lists whose head is one of
// heads. ok is false when the file is not one well-formed list.
func skimTopLevel(src []byte, heads ...string) (head string, spans []span, ok bool) {
	i, n := 0, len(src)
	skipSpace := func() {
		for i < n && isSpaceByte(src[i]) {
			i++
		}
	}
	readAtom := func() string {
		start := i
		for i < n && !isSpaceByte(src[i]) && src[i] != '(' && src[i] != ')' && src[i] != '"' {
			i++
		}
		return string(src[start:i])
	}
	skipSpace()
	if i >= n || src[i] != '(' {
		return "", nil, false
	}
	i++
	skipSpace()
	head = readAtom()
	depth := 1
	childStart, keep := 0, false
	for i < n {
		switch c := src[i]; c {
		case '"':
			i++
			for i < n && src[i] != '"' {
				if src[i] == '\\' {
					i++
				}
				i++
			}
			if i >= n {
				return head, nil, false
			}
			i++
		case '(':
			depth++
			i++
			if depth == 2 {
				childStart = i - 1
				skipSpace()
				keep = slices.Contains(heads, readAtom())
			}
		case ')':
			depth--
			i++
			switch depth {
			case 0:
				// Only white space may follow, as sexpr.Parse requires.
				skipSpace()
				return head, spans, i == n
			case 1:
				if keep {
					spans = append(spans, span{childStart, i})
				}
			}
		default:
			i++
		}
	}
	return head, nil, false
}

// isSpaceByte is sexpr's definition of white space.
func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
