// Package kigen builds KiCad 9 files from node trees: N and Sym assemble
// s-expressions, Format prints them in KiCad's own layout, Library reads
// symbols (flattened for embedding) and footprints from an installed KiCad
// library set, FootprintLibraries resolves footprint libraries the way a
// project's fp-lib-table does, and PlaceFootprint turns a library footprint
// into a placed board footprint. The open-telegraph fixture generator,
// copperhead's drafting engines and the board edits (pcbedit) share it, so a
// drafted file, an edited board and the fixture are written alike. It builds
// on sexpr and geom only and must never import design, llm, agent or
// research.
package kigen

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"copperhead/internal/sexpr"
)

// Sym is an unquoted atom (a keyword such as yes, smd or F.Cu-less tokens).
type Sym string

// N is a shorthand for a list node built from args: Sym values become atoms,
// Go strings become quoted strings, numbers are formatted the KiCad way and
// sexpr.Node / *sexpr.Node values are nested as they are. nil args are skipped.
func N(head string, args ...any) sexpr.Node {
	n := sexpr.Node{Kind: sexpr.List}
	n.Children = append(n.Children, sexpr.Node{Kind: sexpr.Atom, Value: head})
	for _, a := range args {
		switch v := a.(type) {
		case nil:
		case Sym:
			n.Children = append(n.Children, sexpr.Node{Kind: sexpr.Atom, Value: string(v)})
		case string:
			n.Children = append(n.Children, sexpr.Node{Kind: sexpr.String, Value: v})
		case float64:
			n.Children = append(n.Children, sexpr.Node{Kind: sexpr.Atom, Value: Num(v)})
		case int:
			n.Children = append(n.Children, sexpr.Node{Kind: sexpr.Atom, Value: strconv.Itoa(v)})
		case sexpr.Node:
			n.Children = append(n.Children, v)
		case *sexpr.Node:
			if v != nil {
				n.Children = append(n.Children, *v)
			}
		case []sexpr.Node:
			n.Children = append(n.Children, v...)
		default:
			panic(fmt.Sprintf("N: unsupported arg %T", a))
		}
	}
	return n
}

// Num formats a coordinate as KiCad writes it: at most 4 decimals, no
// trailing zeros, no negative zero.
func Num(v float64) string {
	r := math.Round(v*10000) / 10000
	if r == 0 {
		return "0"
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// Clone deep-copies a node so edits never alias library trees.
func Clone(n *sexpr.Node) sexpr.Node {
	c := sexpr.Node{Kind: n.Kind, Value: n.Value}
	if len(n.Children) > 0 {
		c.Children = make([]sexpr.Node, len(n.Children))
		for i := range n.Children {
			c.Children[i] = Clone(&n.Children[i])
		}
	}
	return c
}

// SetArg replaces the i-th argument (after the head) of n.
func SetArg(n *sexpr.Node, i int, v sexpr.Node) {
	n.Children[i+1] = v
}

// Str is a quoted string node.
func Str(v string) sexpr.Node { return sexpr.Node{Kind: sexpr.String, Value: v} }

// RemoveChildren drops every child list whose head is one of names.
func RemoveChildren(n *sexpr.Node, names ...string) {
	out := n.Children[:0:0]
	for _, c := range n.Children {
		drop := false
		if c.Kind == sexpr.List {
			for _, nm := range names {
				if c.Head() == nm {
					drop = true
				}
			}
		}
		if !drop {
			out = append(out, c)
		}
	}
	n.Children = out
}

// InsertAfter inserts kids after the first child list named after (or after
// the head when after is "").
func InsertAfter(n *sexpr.Node, after string, kids ...sexpr.Node) {
	pos := 1
	if after != "" {
		for i := range n.Children {
			if n.Children[i].Kind == sexpr.List && n.Children[i].Head() == after {
				pos = i + 1
				break
			}
		}
	}
	out := make([]sexpr.Node, 0, len(n.Children)+len(kids))
	out = append(out, n.Children[:pos]...)
	out = append(out, kids...)
	out = append(out, n.Children[pos:]...)
	n.Children = out
}

// Format prints a node tree in KiCad's style: one list per line, tab
// indentation, lists holding only atoms kept on one line, xy points packed.
func Format(n *sexpr.Node) string {
	var b strings.Builder
	writeNode(&b, n, 0)
	b.WriteByte('\n')
	return b.String()
}

func leaf(n *sexpr.Node) string {
	switch n.Kind {
	case sexpr.String:
		return sexpr.Quote(n.Value)
	default:
		return n.Value
	}
}

func writeNode(b *strings.Builder, n *sexpr.Node, depth int) {
	if n.Kind != sexpr.List {
		b.WriteString(leaf(n))
		return
	}
	simple := true
	for i := range n.Children {
		if n.Children[i].Kind == sexpr.List {
			simple = false
			break
		}
	}
	b.WriteByte('(')
	if simple {
		for i := range n.Children {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(leaf(&n.Children[i]))
		}
		b.WriteByte(')')
		return
	}
	indent := strings.Repeat("\t", depth+1)
	i := 0
	for ; i < len(n.Children) && n.Children[i].Kind != sexpr.List; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(leaf(&n.Children[i]))
	}
	if n.Head() == "pts" {
		b.WriteByte('\n')
		b.WriteString(indent)
		col := 0
		for j := i; j < len(n.Children); j++ {
			if j > i {
				if col >= 4 {
					b.WriteByte('\n')
					b.WriteString(indent)
					col = 0
				} else {
					b.WriteByte(' ')
				}
			}
			writeNode(b, &n.Children[j], depth+1)
			col++
		}
	} else {
		for ; i < len(n.Children); i++ {
			b.WriteByte('\n')
			b.WriteString(indent)
			writeNode(b, &n.Children[i], depth+1)
		}
	}
	b.WriteByte('\n')
	b.WriteString(strings.Repeat("\t", depth))
	b.WriteByte(')')
}
