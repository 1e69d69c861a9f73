package sexpr

import (
	"iter"
	"strconv"
)

// Head is the keyword naming a list, such as "symbol" in (symbol ...): the
// value of its first child when that child is an atom, else "".
func (n *Node) Head() string {
	if n == nil || n.Kind != List || len(n.Children) == 0 || n.Children[0].Kind != Atom {
		return ""
	}
	return n.Children[0].Value
}

// Child returns the first child list whose head is name, or nil.
func (n *Node) Child(name string) *Node {
	if n == nil {
		return nil
	}
	for i := range n.Children {
		if c := &n.Children[i]; c.Kind == List && c.Head() == name {
			return c
		}
	}
	return nil
}

// All yields every child list whose head is name, in file order.
func (n *Node) All(name string) iter.Seq[*Node] {
	return func(yield func(*Node) bool) {
		if n == nil {
			return
		}
		for i := range n.Children {
			if c := &n.Children[i]; c.Kind == List && c.Head() == name {
				if !yield(c) {
					return
				}
			}
		}
	}
}

// Arg returns the value of the i-th argument after the head (Arg(0) of
// (at 1 2 90) is "1"), or "" when there is none or it is a list.
func (n *Node) Arg(i int) string {
	if n == nil || i+1 >= len(n.Children) || i < 0 {
		return ""
	}
	c := &n.Children[i+1]
	if c.Kind == List {
		return ""
	}
	return c.Value
}

// Float returns Arg(i) as a number, and false when it is missing or not numeric.
func (n *Node) Float(i int) (float64, bool) {
	v, err := strconv.ParseFloat(n.Arg(i), 64)
	return v, err == nil
}

// Value1 returns the first argument of the child list named name: for
// (symbol (lib_id "Device:R")) Value1("lib_id") is "Device:R".
func (n *Node) Value1(name string) string {
	return n.Child(name).Arg(0)
}

// HasAtom reports whether an atom child equals v, as in (pin_names hide).
func (n *Node) HasAtom(v string) bool {
	if n == nil {
		return false
	}
	for i := range n.Children {
		if c := &n.Children[i]; c.Kind == Atom && c.Value == v {
			return true
		}
	}
	return false
}

// Text returns the node's exact source bytes.
func (n *Node) Text(src []byte) []byte { return src[n.Start:n.End] }
